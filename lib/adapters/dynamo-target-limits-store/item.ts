import { RECORD_KEY } from "../../contract/record-table.js";

/**
 * Limit items live in the event table beside the breakers' (`#target:`): a slot under
 * `#slot:<key>#<i>`, a rate counter under `#rate:<key>`. Event ids start with a letter or digit,
 * so none can collide, and no item carries `listedStatus`, so the status index never sees them.
 */
const SLOT_ITEM_PREFIX = "#slot:";
const RATE_ITEM_PREFIX = "#rate:";

/** Idle limit items (a target no longer called) are left to the table's TTL after this long. */
const IDLE_ITEM_SECONDS = 86_400;

export const slotKey = (key: string, slot: number) => ({
  [RECORD_KEY]: `${SLOT_ITEM_PREFIX}${key}#${slot}`,
});

export const rateKey = (key: string) => ({ [RECORD_KEY]: `${RATE_ITEM_PREFIX}${key}` });

/** The TTL an item written at `nowMs` carries. */
export const ttlOf = (nowMs: number): number => Math.floor(nowMs / 1000) + IDLE_ITEM_SECONDS;
