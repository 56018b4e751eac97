import { delayRange, drawDelaySeconds } from "./backoff.js";
import { ConfigurationError } from "./errors.js";
import type { RetryPolicy } from "./policy.js";
import { applyPolicyLimits, type PolicyLimits } from "./policy-limits.js";
import type { RandomSource } from "./random.js";

/** What one retry of a policy looks like: its range and how the drawn delays spread in it. */
interface RetryExplanation {
  /** 1 for the first retry (the second attempt). */
  readonly retry: number;
  readonly ceilingSeconds: number;
  readonly minSeconds: number;
  readonly maxSeconds: number;
  readonly p50Seconds: number;
  readonly p90Seconds: number;
  readonly p99Seconds: number;
}

/** A policy's whole retry schedule, as `ricochet policy explain` prints it. */
export interface PolicyExplanation {
  readonly policy: RetryPolicy;
  readonly retries: readonly RetryExplanation[];
  /**
   * The longest the retries can wait in total: the sum of each retry's largest delay. For full,
   * equal and no jitter that is the sum of the ceilings; decorrelated jitter can draw above the
   * exponential ceiling, so its real maximum is used rather than a bound the draws break.
   */
  readonly totalMaxSeconds: number;
  /** The median, over samples, of one sample's total wait. */
  readonly totalP50Seconds: number;
  /** The deployment's bounds, when the explanation was asked against them. */
  readonly limits?: PolicyLimits;
  /** Whether the policy lies within {@link limits}: an event asking for it runs it unchanged. */
  readonly withinLimits?: boolean;
  /** What the orchestrator would clamp in an event asking for this policy; empty when within. */
  readonly adjustments?: readonly string[];
}

export interface ExplainOptions {
  /** How many retry schedules to draw; each chains its delays like a real event does. */
  readonly samples: number;
  readonly random: RandomSource;
  /** The deployment's bounds to judge the policy against; the schedule is the policy's own. */
  readonly limits?: PolicyLimits | undefined;
}

/**
 * The nearest-rank percentile of ascending `sorted` values (p in (0, 100]): a value that was
 * actually drawn, so percentiles of whole seconds stay whole.
 */
export const percentile = (sorted: ArrayLike<number>, p: number): number => {
  if (sorted.length === 0) throw new RangeError("percentile of no values");
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
};

const sortedCopy = (values: Float64Array): Float64Array => values.slice().sort();

/**
 * Explains a policy: per retry, its ceiling, the range the delay is drawn from, and percentiles
 * of `samples` drawn schedules. Retry-After hints and deadlines are not modelled: this is what
 * the policy alone does. Deterministic for a deterministic `random`. Given the deployment's
 * `limits`, it also says whether the policy lies within them and what an event asking for it
 * would have clamped.
 * @throws ConfigurationError when `samples` is not a whole number of at least 1.
 */
export const explainPolicy = (policy: RetryPolicy, options: ExplainOptions): PolicyExplanation => {
  const { samples, random } = options;
  if (!Number.isSafeInteger(samples) || samples < 1) {
    throw new ConfigurationError(`samples must be a whole number of at least 1, got ${samples}`);
  }
  const retryCount = policy.maxAttempts - 1;
  const draws = Array.from({ length: retryCount }, () => new Float64Array(samples));
  const totals = new Float64Array(samples);
  for (let sample = 0; sample < samples; sample += 1) {
    // Decorrelated jitter grows from the previous delay, so a sample is one chained schedule.
    let previous: number | undefined;
    for (let retry = 1; retry <= retryCount; retry += 1) {
      const delay = drawDelaySeconds(policy, retry, random, previous);
      (draws[retry - 1] as Float64Array)[sample] = delay;
      totals[sample] = (totals[sample] as number) + delay;
      previous = delay;
    }
  }
  const retries = draws.map((values, index): RetryExplanation => {
    const retry = index + 1;
    const sorted = sortedCopy(values);
    const range = delayRange(policy, retry);
    return {
      retry,
      ceilingSeconds: range.ceilingSeconds,
      minSeconds: range.minSeconds,
      maxSeconds: range.maxSeconds,
      p50Seconds: percentile(sorted, 50),
      p90Seconds: percentile(sorted, 90),
      p99Seconds: percentile(sorted, 99),
    };
  });
  const explanation = {
    policy,
    retries,
    totalMaxSeconds: retries.reduce((sum, r) => sum + r.maxSeconds, 0),
    totalP50Seconds: retryCount === 0 ? 0 : percentile(sortedCopy(totals), 50),
  };
  if (options.limits === undefined) return explanation;
  const { adjustments } = applyPolicyLimits(policy, options.limits);
  return {
    ...explanation,
    limits: options.limits,
    withinLimits: adjustments.length === 0,
    adjustments,
  };
};
