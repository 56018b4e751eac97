import { type Breaker, BreakerState, closedBreaker } from "../../lib/core/circuit-breaker.js";
import type {
  CountFailureRequest,
  ReplaceBreakerResult,
  StoredBreaker,
  TargetStateStore,
} from "../../lib/core/ports.js";

/*
 * The targets' breaker items in memory, for the simulation: each method one synchronous
 * read-check-write, transcribed from lib/adapters/dynamo-target-state-store.ts (a count adds to
 * the item's window or starts a new one; a replacement is guarded by the version).
 */
export const createMemoryTargetStateStore = (): TargetStateStore => {
  const items = new Map<string, StoredBreaker>();
  const read = (key: string, nowMs: number): StoredBreaker =>
    structuredClone(items.get(key)) ?? { key, breaker: closedBreaker(nowMs), version: 0 };

  const countFailure = async (request: CountFailureRequest): Promise<StoredBreaker> => {
    const old = read(request.key, request.nowMs);
    const exists = items.has(request.key);
    const calls = request.successes + 1;
    // windowStartMs >= :window adds (an older window, from a skewed clock, counts into the
    // item's); otherwise the failure starts the new window.
    const adds = exists && old.breaker.windowStartMs >= request.windowStartMs;
    const breaker: Breaker = adds
      ? { ...old.breaker, calls: old.breaker.calls + calls, failures: old.breaker.failures + 1 }
      : {
          ...(exists
            ? old.breaker
            : { ...closedBreaker(request.nowMs), state: BreakerState.CLOSED }),
          windowStartMs: request.windowStartMs,
          calls,
          failures: 1,
        };
    const stored = { key: request.key, breaker, version: old.version + 1 };
    items.set(request.key, structuredClone(stored));
    return stored;
  };

  const replace = async (
    key: string,
    version: number,
    breaker: Breaker,
  ): Promise<ReplaceBreakerResult> => {
    const old = read(key, breaker.changedAtMs);
    if (old.version !== version) return { kind: "moved", stored: old };
    const stored = { key, breaker, version: version + 1 };
    items.set(key, structuredClone(stored));
    return { kind: "replaced", stored };
  };

  return {
    countFailure,
    replace,
    get: async (key) => (items.has(key) ? read(key, 0) : undefined),
  };
};
