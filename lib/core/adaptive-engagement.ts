import {
  type AdaptiveLimit,
  type AdaptiveLimitSettings,
  allowance,
  LimitChange,
} from "./adaptive-limit.js";
import { heardLately } from "./fleet-share.js";

/*
 * Whether a target's adaptive limit (./adaptive-limit.ts) holds its calls back, and what
 * operators are told of it: the log line on a cut, and the learned limit they list. Pure; the
 * limits one instance keeps are lib/app/orchestrator/adaptive-limits.ts.
 */

/**
 * Whether the limit holds calls back at all: its rate cut below the ceiling, or paused by a
 * `Retry-After`, or its breaker open. The concurrency a ceiling rate implies is not a limit
 * learned: a target that never pushed back is admitted as it would be without adaptive limits.
 */
export const isEngaged = (
  limit: AdaptiveLimit,
  nowMs: number,
  settings: AdaptiveLimitSettings,
): boolean => {
  const allowed = allowance(limit, nowMs, settings);
  return (
    allowed.notBeforeMs !== undefined ||
    allowed.callsPerSecond < settings.maxCallsPerSecond ||
    allowed.learnedConcurrency !== undefined
  );
};

/** The changes operators are told of: a cut, a pause and the breaker; not each small increase. */
const TOLD_CHANGES: ReadonlySet<LimitChange> = new Set([
  LimitChange.OVERLOAD,
  LimitChange.LATENCY,
  LimitChange.RETRY_AFTER,
]);

/** Whether going from `before` to `after` is a cut or a pause operators are told of. */
export const limitLowered = (before: AdaptiveLimit, after: AdaptiveLimit): boolean => {
  const unlimited = Number.POSITIVE_INFINITY;
  const cut =
    after.callsPerSecond < before.callsPerSecond ||
    (after.concurrencyLimit ?? unlimited) < (before.concurrencyLimit ?? unlimited);
  const paused = after.pauseUntilMs !== before.pauseUntilMs;
  return (cut || paused) && TOLD_CHANGES.has(after.reason);
};

/** A change in whether a target's 429s are read as noise, which operators are told of. */
export type NoiseVerdict =
  | { readonly kind: "learned"; readonly refusedShare: number }
  | { readonly kind: "forgotten" };

/** Whether going from `before` to `after` learned a noise share or forgot one; else undefined. */
export const noiseVerdictOf = (
  before: AdaptiveLimit,
  after: AdaptiveLimit,
): NoiseVerdict | undefined => {
  const was = before.noise?.noiseShare;
  const now = after.noise?.noiseShare;
  if (now !== undefined && was === undefined) return { kind: "learned", refusedShare: now };
  return now === undefined && was !== undefined ? { kind: "forgotten" } : undefined;
};

/** A target's learned limit as operators see it. */
export interface LearnedLimit {
  readonly key: string;
  /** The rate allowed now, calls/s (0 while the breaker is open). */
  readonly callsPerSecond: number;
  /** Its ceiling: the declared `maxCallsPerSecond`, or the most any target may be given. */
  readonly ceilingPerSecond: number;
  readonly maxConcurrentCalls: number;
  readonly reason: LimitChange;
  readonly changedAtMs: number;
  /**
   * The target's rate summed over the instances holding it back, this one's and what it last
   * heard of the others (./fleet-share.ts); unset when it heard of none lately.
   */
  readonly summedPerSecond?: number | undefined;
}

/** `key`'s limit as operators see it, if it holds calls back at `nowMs`. */
export const learnedLimitOf = (
  key: string,
  limit: AdaptiveLimit,
  nowMs: number,
  settings: AdaptiveLimitSettings,
): LearnedLimit | undefined => {
  if (!isEngaged(limit, nowMs, settings)) return undefined;
  const allowed = allowance(limit, nowMs, settings);
  const heard = heardLately(limit.others, nowMs, settings.othersMaxAgeMs);
  return {
    key,
    callsPerSecond: allowed.callsPerSecond,
    ceilingPerSecond: settings.maxCallsPerSecond,
    maxConcurrentCalls: allowed.maxConcurrentCalls,
    reason: limit.reason,
    changedAtMs: limit.changedAtMs,
    ...(heard ? { summedPerSecond: allowed.callsPerSecond + heard.perSecond } : {}),
  };
};
