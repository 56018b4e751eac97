import type { Log } from "../../core/observability.js";
import type { TargetLimitsStore } from "../../core/ports.js";
import type { Clock, RandomSource } from "../../core/random.js";
import type { RateBucket } from "../../core/rate-bucket.js";
import type { TargetLimits } from "../../core/target-settings.js";
import { takeSlot } from "./target-limits/concurrency-slots.js";
import {
  type CallPermit,
  failClosed,
  type LimitAdmission,
  LimitKind,
} from "./target-limits/limit-admission.js";
import { overRate } from "./target-limits/rate-limit.js";

export {
  type CallPermit,
  type LimitAdmission,
  LimitKind,
} from "./target-limits/limit-admission.js";

/** The per-instance face of the targets' shared limits. */
export interface TargetLimiter {
  /**
   * Asks to call the target now; `leaseMs` is how long the call may hold a concurrency slot
   * if its instance stops before giving it back.
   */
  admit(key: string, leaseMs: number): Promise<LimitAdmission>;
}

export interface TargetLimiterDeps {
  readonly store: TargetLimitsStore;
  readonly limitsFor: (key: string) => TargetLimits;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly log: Log;
  /** Names this instance in the slots it holds. */
  readonly instanceId: string;
}

export const NO_PERMIT: CallPermit = { release: async () => {} };

/**
 * Limits shared through `store`. A target without limits costs nothing; the rate limit costs one
 * write per batch of calls (an instance takes as many as it made in its last window, at most 5 %
 * of the limit, so a steady caller writes about once a window), the concurrency limit one write
 * to take a slot and one to give it back.
 *
 * Unlike the breakers (our own protection, which fail open), a limit is a promise to the target:
 * when the store cannot be asked, the call is deferred a second or two, with a warning. A slot
 * taken by a write whose answer was lost is held until its lease lapses: less capacity, never
 * more.
 *
 * This instance's share of a rate window is lib/core/rate-bucket.ts; the two limits' reads and
 * writes are in ./target-limits/.
 */
export const createTargetLimiter = (deps: TargetLimiterDeps): TargetLimiter => {
  const { limitsFor, instanceId } = deps;
  let calls = 0;
  const context = {
    ...deps,
    buckets: new Map<string, RateBucket>(),
    held: new Map<string, number>(),
    nextHolder: () => {
      calls += 1;
      return `${instanceId}#${calls}`;
    },
  };
  const admit = async (key: string, leaseMs: number): Promise<LimitAdmission> => {
    const { maxCallsPerSecond, maxConcurrentCalls } = limitsFor(key);
    if (maxCallsPerSecond !== undefined) {
      const over = await overRate(context, key, maxCallsPerSecond).catch((error: unknown) =>
        failClosed(context, key, LimitKind.RATE, error),
      );
      if (over !== undefined) return over;
    }
    if (maxConcurrentCalls === undefined) return { verdict: "call", permit: NO_PERMIT };
    return takeSlot(context, key, maxConcurrentCalls, leaseMs).catch((error: unknown) =>
      failClosed(context, key, LimitKind.CONCURRENCY, error),
    );
  };
  return { admit };
};
