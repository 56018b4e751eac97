import { PutCommand } from "@aws-sdk/lib-dynamodb";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { updateRecord } from "../../../lib/adapters/dynamo-event-store/conditional-writes.js";
import { claimCondition } from "../../../lib/adapters/dynamo-event-store/conditions.js";
import {
  createStoreContext,
  type StoreContext,
} from "../../../lib/adapters/dynamo-event-store/store-context.js";
import { claimUpdate } from "../../../lib/adapters/dynamo-event-store/updates.js";
import { itemToRecord } from "../../../lib/adapters/dynamo-record-item.js";
import { isInvalidPlaceholder, mayClaim } from "../../../lib/core/claim.js";
import { DeadLetterReason } from "../../../lib/core/decide.js";
import type { ClaimRequest } from "../../../lib/core/ports.js";
import { ALL_STATUSES, EventStatus } from "../../../lib/core/status.js";
import { anEventId, FIXED_NOW_MS } from "../../support/factories.js";
import { createTestTable, testClients } from "../../support/local-aws.js";

/*
 * The claim rule is written twice: `mayClaim` (lib/core/claim.ts), which the simulation runs, and
 * the condition expression the DynamoDB store sends (conditions.ts, `claimCondition`), which
 * production runs. For generated records and claims, DynamoDB Local's verdict on the condition
 * must equal the rule's, except in the one place they differ on purpose (named below).
 */

const { documents } = testClients();
let context: StoreContext;

beforeAll(async () => {
  context = createStoreContext(documents, await createTestTable("claimrule"));
});

const NOW = FIXED_NOW_MS;
const DIGESTS = ["digest-a", "digest-b"] as const;

/** Where a record's lease ends, from the claim's point of view. */
const LEASE_ENDS = { none: undefined, expired: NOW - 1, now: NOW, live: NOW + 1 } as const;

/** A record's item as the table may hold it: only the fields the claim rule reads vary. */
const anItem = () =>
  fc.record({
    status: fc.constantFrom(...ALL_STATUSES),
    generation: fc.integer({ min: 0, max: 3 }),
    attempts: fc.constantFrom(0, 1, 2),
    leaseExpiresAt: fc.constantFrom(...Object.values(LEASE_ENDS)),
    envelopeDigest: fc.constantFrom(undefined, ...DIGESTS),
    deadLetterReason: fc.constantFrom(undefined, ...Object.values(DeadLetterReason)),
    /** An invalid envelope's placeholder stores none; one from an older release stored 0. */
    attemptBudget: fc.constantFrom(undefined, 0, 3),
  });

/** A claim at the record's generation give or take: where the rule draws its lines. */
const aClaim = () =>
  fc.record({
    generationDelta: fc.constantFrom(-1, 0, 1, 2),
    envelopeDigest: fc.constantFrom(...DIGESTS),
  });

const claimRequest = (
  eventId: string,
  generation: number,
  envelopeDigest: string,
): ClaimRequest => ({
  eventId,
  generation,
  envelopeDigest,
  worker: "worker-b",
  nowMs: NOW,
  leaseMs: 10_000,
  attemptBudget: 3,
  targetSummary: "http POST https://receiver.example.com/",
});

/** Without the `undefined` fields: DynamoDB stores no attribute for them. */
const stored = (eventId: string, item: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries({ ...item, eventId, updatedAt: new Date(NOW).toISOString() }).filter(
      ([, value]) => value !== undefined,
    ),
  );

/** Whether DynamoDB Local applied the claim's real update under its real condition. */
const conditionAdmits = async (request: ClaimRequest): Promise<boolean> => {
  const answer = await updateRecord(context, "claim", {
    eventId: request.eventId,
    update: claimUpdate(request),
    condition: claimCondition(request),
  });
  return answer.kind === "written";
};

/**
 * The one intended difference: an invalid envelope's placeholder written by an older release
 * stored `attemptBudget` 0, and a claim over it would keep that budget; the condition can see
 * the stored attribute and refuses it, the pure rule (which reads a missing budget as 0 too)
 * cannot tell the two apart.
 */
const isOlderPlaceholder = (item: Record<string, unknown>): boolean =>
  item.attemptBudget !== undefined && isInvalidPlaceholder(itemToRecord(item));

describe("the claim condition DynamoDB applies", () => {
  it("admits exactly the claims mayClaim admits, for any record and claim", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(anItem(), { freq: 8, nil: undefined }),
        aClaim(),
        async (item, claim) => {
          const eventId = anEventId("claimrule");
          const recordItem = item === undefined ? undefined : stored(eventId, item);
          if (recordItem !== undefined)
            await documents.send(
              new PutCommand({ TableName: context.tableName, Item: recordItem }),
            );
          const generation = Math.max(0, (item?.generation ?? 0) + claim.generationDelta);
          const request = claimRequest(eventId, generation, claim.envelopeDigest);
          const record = recordItem === undefined ? undefined : itemToRecord(recordItem);
          const rule = mayClaim(record, generation, NOW, claim.envelopeDigest);
          const intended = recordItem !== undefined && isOlderPlaceholder(recordItem);
          expect(await conditionAdmits(request)).toBe(rule && !intended);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("refuses an older release's invalid-envelope placeholder, which mayClaim admits", async () => {
    const eventId = anEventId("claimrule");
    const placeholder = stored(eventId, {
      status: EventStatus.REJECTED,
      deadLetterReason: DeadLetterReason.INVALID_ENVELOPE,
      generation: 0,
      attempts: 0,
      attemptBudget: 0,
    });
    await documents.send(new PutCommand({ TableName: context.tableName, Item: placeholder }));
    const request = claimRequest(eventId, 0, "digest-a");
    expect(mayClaim(itemToRecord(placeholder), 0, NOW, "digest-a")).toBe(true);
    expect(await conditionAdmits(request)).toBe(false);
  });
});
