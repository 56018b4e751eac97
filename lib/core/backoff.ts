import type { RetryPolicy } from "./policy.js";
import { type RandomSource, randomInt } from "./random.js";

/** AWS's "Exponential Backoff and Jitter" grows the decorrelated range by this factor. */
export const DECORRELATED_GROWTH = 3;

/**
 * The ceiling of retry `n` (n = 1 for the first retry):
 * `min(maxDelaySeconds, baseDelaySeconds × multiplier^(n-1))`, in whole seconds.
 */
export const retryCeilingSeconds = (policy: RetryPolicy, retryNumber: number): number => {
  const raw = policy.baseDelaySeconds * policy.multiplier ** (retryNumber - 1);
  return Math.floor(Math.min(policy.maxDelaySeconds, raw));
};

/** The whole-second range a retry's delay is drawn from, before any Retry-After floor. */
export interface DelayRange {
  readonly ceilingSeconds: number;
  readonly minSeconds: number;
  readonly maxSeconds: number;
}

/**
 * The range retry `n` is drawn from. For decorrelated jitter it depends on the previous delay;
 * without one (as in `policy explain`) the widest range that retry can reach is returned.
 */
export const delayRange = (
  policy: RetryPolicy,
  retryNumber: number,
  previousDelaySeconds?: number,
): DelayRange => {
  const ceilingSeconds = retryCeilingSeconds(policy, retryNumber);
  switch (policy.jitter) {
    case "none":
      return { ceilingSeconds, minSeconds: ceilingSeconds, maxSeconds: ceilingSeconds };
    case "full":
      return { ceilingSeconds, minSeconds: 0, maxSeconds: ceilingSeconds };
    case "equal":
      return {
        ceilingSeconds,
        minSeconds: Math.floor(ceilingSeconds / 2),
        maxSeconds: ceilingSeconds,
      };
    case "decorrelated": {
      const base = policy.baseDelaySeconds;
      const previous = previousDelaySeconds ?? base * DECORRELATED_GROWTH ** (retryNumber - 1);
      const upper = Math.floor(
        Math.min(policy.maxDelaySeconds, Math.max(base, previous * DECORRELATED_GROWTH)),
      );
      return { ceilingSeconds, minSeconds: Math.min(base, upper), maxSeconds: upper };
    }
  }
};

/**
 * Draws the delay before retry `n`: a whole number of seconds within {@link delayRange}.
 * `previousDelaySeconds` feeds decorrelated jitter (`min(cap, random(base, previous × 3))`).
 */
export const drawDelaySeconds = (
  policy: RetryPolicy,
  retryNumber: number,
  random: RandomSource,
  previousDelaySeconds?: number,
): number => {
  const range = delayRange(
    policy,
    retryNumber,
    policy.jitter === "decorrelated"
      ? (previousDelaySeconds ?? policy.baseDelaySeconds)
      : undefined,
  );
  return randomInt(random, range.minSeconds, range.maxSeconds);
};
