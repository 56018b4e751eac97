import { RECORD_KEY, STATUS_INDEX } from "../../contract/record-table.js";
import { type Breaker, BreakerState, closedBreaker } from "../../core/circuit-breaker.js";
import type { StoredBreaker, TargetWriteExtras } from "../../core/ports.js";
import type { TargetNotes } from "../../core/target-view.js";

/*
 * A target's item in the event table: its key, the listing every write stamps, and how its
 * attributes read as a breaker with notes. Every operation of the target state store writes it.
 */

/**
 * Breaker items live in the event table under `#target:<key>`: an event id starts with a letter
 * or digit, so none can collide.
 */
export const TARGET_ITEM_PREFIX = "#target:";

/**
 * The status index's partition value every breaker item carries, with its last write's time as
 * the sort key: `ricochet targets` is one Query of the index, with no registry item to keep and
 * no index to add. No status starts with `#`, so no status listing can ever return a target.
 */
export const TARGET_LISTED_STATUS = "#target";

export const itemKey = (key: string) => ({ [RECORD_KEY]: `${TARGET_ITEM_PREFIX}${key}` });

/** What every write of an item sets, so that the index lists it by its last write. */
export const listed = (nowMs: number) => ({
  ":listed": TARGET_LISTED_STATUS,
  ":updated": new Date(nowMs).toISOString(),
});
export const LISTED_SET = `${STATUS_INDEX.partitionKey} = :listed, ${STATUS_INDEX.sortKey} = :updated`;

/** The SET clauses and values a write's extras add (the deferred count is the caller's). */
export const lastErrorUpdate = (
  extras: TargetWriteExtras,
  nowMs: number,
): { readonly set: string[]; readonly values: Record<string, unknown> } =>
  extras.lastError === undefined
    ? { set: [], values: {} }
    : {
        set: ["lastError = :lastError", "lastErrorAtMs = :now"],
        values: { ":lastError": extras.lastError, ":now": nowMs },
      };

export const deferredAdd = (extras: TargetWriteExtras) =>
  (extras.deferred ?? 0) > 0
    ? { add: ["deferredCount :deferred"], values: { ":deferred": extras.deferred } }
    : { add: [], values: {} };

const num = (value: unknown, fallback: number): number =>
  typeof value === "number" ? value : fallback;

/** Reads a breaker item; one never written reads as a closed breaker at version 0. */
export const storedOf = (
  key: string,
  item: Record<string, unknown> | undefined,
  nowMs: number,
): StoredBreaker => {
  if (item === undefined) return { key, breaker: closedBreaker(nowMs), version: 0 };
  const breaker: Breaker = {
    state: (item.state as Breaker["state"] | undefined) ?? BreakerState.CLOSED,
    windowStartMs: num(item.windowStartMs, nowMs),
    calls: num(item.calls, 0),
    failures: num(item.failures, 0),
    openings: num(item.openings, 0),
    reopenAtMs: typeof item.reopenAtMs === "number" ? item.reopenAtMs : undefined,
    probesInFlight: num(item.probesInFlight, 0),
    changedAtMs: num(item.changedAtMs, nowMs),
  };
  const notes: TargetNotes = {
    lastError: typeof item.lastError === "string" ? item.lastError : undefined,
    lastErrorAtMs: typeof item.lastErrorAtMs === "number" ? item.lastErrorAtMs : undefined,
    deferred: typeof item.deferredCount === "number" ? item.deferredCount : undefined,
    openedAtMs: typeof item.openedAtMs === "number" ? item.openedAtMs : undefined,
    closedAtMs: typeof item.closedAtMs === "number" ? item.closedAtMs : undefined,
  };
  return { key, breaker, version: num(item.version, 0), notes };
};
