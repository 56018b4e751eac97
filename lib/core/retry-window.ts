import { SETTINGS } from "../contract/settings.js";
import { retryCeilingSeconds } from "./backoff.js";
import type { RetryPolicy } from "./policy.js";

/**
 * Below this whole retry window a policy is flagged as short: a target that is down for a minute
 * (a deploy, a failover) then exhausts every event sent to it while it is down.
 */
export const DEFAULT_SHORT_WINDOW_THRESHOLD_SECONDS = SETTINGS.shortRetryWindowThreshold.default;

/** How long a policy's retries can wait in total, and whether that is short. */
export interface RetryWindow {
  /** The sum of the retries' ceilings: the longest the retries wait, Retry-After aside. */
  readonly seconds: number;
  /** Retries the policy makes (maxAttempts − 1). */
  readonly retries: number;
  readonly thresholdSeconds: number;
  /** True when the policy retries but its window is below the threshold. */
  readonly short: boolean;
}

/**
 * The sum of the ceilings of every retry of `policy`. For no, full and equal jitter this is
 * the most the retries can wait in total; decorrelated jitter can draw above a ceiling, yet the
 * ceilings are what the policy promises, so they are what is judged.
 */
export const retryWindowSeconds = (policy: RetryPolicy): number => {
  let total = 0;
  for (let retry = 1; retry < policy.maxAttempts; retry += 1) {
    total += retryCeilingSeconds(policy, retry);
  }
  return total;
};

/**
 * Judges a policy's retry window against `thresholdSeconds` (0 turns the judgement off). The
 * 7-second trap: Celery's `max_retries=3, retry_backoff=1` waits 1 + 2 + 4 s, and an outage
 * longer than that loses every task. A policy that never retries (maxAttempts 1) chose so and
 * is not flagged.
 */
export const judgeRetryWindow = (
  policy: RetryPolicy,
  thresholdSeconds: number = DEFAULT_SHORT_WINDOW_THRESHOLD_SECONDS,
): RetryWindow => {
  const seconds = retryWindowSeconds(policy);
  const retries = policy.maxAttempts - 1;
  return { seconds, retries, thresholdSeconds, short: retries > 0 && seconds < thresholdSeconds };
};

/**
 * One sentence saying why a short window is a trap, for every place that warns about it; each
 * adds how to change its own threshold.
 */
export const describeShortWindow = (window: RetryWindow): string =>
  `the ${window.retries} ${window.retries === 1 ? "retry waits" : "retries wait"} at most ` +
  `${window.seconds} s in total, under ${window.thresholdSeconds} s: a target down for longer ` +
  "than that dead-letters every event sent to it meanwhile; raise maxAttempts, baseDelaySeconds " +
  "or multiplier";
