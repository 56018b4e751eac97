import { type Breaker, BreakerState, closedBreaker } from "../../lib/core/circuit-breaker.js";
import { entriesToPrune, type LearnedLimitEntry } from "../../lib/core/learned-limits.js";
import type {
  CountFailureRequest,
  LearnedLimitWrite,
  ListedTarget,
  ReplaceBreakerRequest,
  ReplaceBreakerResult,
  StoredBreaker,
  TargetStateStore,
  TargetWriteExtras,
} from "../../lib/core/ports.js";
import { startsOutage, stateChangeStamps, type TargetNotes } from "../../lib/core/target-view.js";

/*
 * The targets' breaker items in memory, for the simulation: each method one synchronous
 * read-check-write, transcribed from lib/adapters/dynamo-target-state-store.ts (a count adds to
 * the item's window or starts a new one; a replacement is guarded by the version and keeps the
 * notes; a deferral count moves no version; a learned limit's write sets the instance's own
 * entry, creates no breaker and prunes the stale and surplus entries).
 */
export const createMemoryTargetStateStore = (): TargetStateStore => {
  const items = new Map<string, ListedTarget>();
  const read = (key: string, nowMs: number): ListedTarget =>
    structuredClone(items.get(key)) ?? {
      key,
      breaker: closedBreaker(nowMs),
      version: 0,
      updatedAt: "",
    };
  const write = (stored: StoredBreaker, nowMs: number): StoredBreaker => {
    // A breaker's write keeps the learned limits, as an update of the item's own attributes does.
    const learned = items.get(stored.key)?.learned;
    const updatedAt = new Date(nowMs).toISOString();
    items.set(stored.key, structuredClone({ ...stored, learned, updatedAt }));
    return stored;
  };
  const noted = (
    notes: TargetNotes | undefined,
    extras: TargetWriteExtras,
    nowMs: number,
  ): TargetNotes => ({
    ...notes,
    ...(extras.lastError === undefined
      ? {}
      : { lastError: extras.lastError, lastErrorAtMs: nowMs }),
    ...((extras.deferred ?? 0) > 0
      ? { deferred: (notes?.deferred ?? 0) + (extras.deferred ?? 0) }
      : {}),
  });

  const countFailure = async (request: CountFailureRequest): Promise<StoredBreaker> => {
    const old = read(request.key, request.nowMs);
    // An item a learned limit's write created has no breaker window yet (version 0).
    const exists = items.has(request.key) && old.version > 0;
    const calls = request.successes + request.failures;
    // windowStartMs >= :window adds (an older window, from a skewed clock, counts into the
    // item's); otherwise the failure starts the new window.
    const adds = exists && old.breaker.windowStartMs >= request.windowStartMs;
    const breaker: Breaker = adds
      ? {
          ...old.breaker,
          calls: old.breaker.calls + calls,
          failures: old.breaker.failures + request.failures,
        }
      : {
          ...(exists
            ? old.breaker
            : { ...closedBreaker(request.nowMs), state: BreakerState.CLOSED }),
          windowStartMs: request.windowStartMs,
          calls,
          failures: request.failures,
        };
    const notes = noted(old.notes, request, request.nowMs);
    return write({ key: request.key, breaker, version: old.version + 1, notes }, request.nowMs);
  };

  const replace = async (request: ReplaceBreakerRequest): Promise<ReplaceBreakerResult> => {
    const { key, version, breaker, nowMs } = request;
    const old = read(key, nowMs);
    if (old.version !== version) return { kind: "moved", stored: old };
    const outage = startsOutage(breaker);
    const notes: TargetNotes = {
      ...noted(old.notes, outage ? { lastError: request.lastError } : request, nowMs),
      ...stateChangeStamps(breaker),
      ...(outage ? { deferred: request.deferred ?? 0 } : {}),
    };
    const stored = write({ key, breaker, version: version + 1, notes }, nowMs);
    return { kind: "replaced", stored };
  };

  const addDeferrals = async (key: string, count: number, nowMs: number): Promise<void> => {
    const old = items.get(key);
    // attribute_exists(version): an item holding only learned limits has no breaker.
    if (old === undefined || old.version === 0) return;
    write({ ...old, notes: noted(old.notes, { deferred: count }, nowMs) }, nowMs);
  };

  const list = async (limit: number): Promise<ListedTarget[]> =>
    [...items.values()]
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
      .slice(0, limit)
      .map((item) => structuredClone(item));

  const writeLearnedLimit = async (write: LearnedLimitWrite): Promise<LearnedLimitEntry[]> => {
    const old = read(write.key, write.nowMs);
    const others = (old.learned ?? []).filter((entry) => entry.instanceId !== write.instanceId);
    const written = write.entry === undefined ? others : [...others, write.entry];
    const pruned = new Set(entriesToPrune(written, write.nowMs));
    const learned = written.filter((entry) => !pruned.has(entry));
    items.set(
      write.key,
      structuredClone({ ...old, learned, updatedAt: new Date(write.nowMs).toISOString() }),
    );
    return structuredClone(learned.filter((entry) => entry.instanceId !== write.instanceId));
  };

  return {
    countFailure,
    replace,
    addDeferrals,
    get: async (key) => (items.has(key) ? read(key, 0) : undefined),
    list,
    writeLearnedLimit,
  };
};
