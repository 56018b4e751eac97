import * as z from "zod";
import type { InputProblem } from "./errors.js";
import { MAX_DELAY_LIMIT_SECONDS, type RetryPolicy } from "./policy.js";

/*
 * A producer's `policy` override is applied over the deployment's policy, so without bounds any
 * producer could turn Ricochet into a load generator against its target (100 attempts with no
 * delay made 100 calls in 16 s). The deployment sets bounds; an override outside them is clamped,
 * not refused: the event is still the producer's business and is delivered, only less eagerly
 * than asked. Each clamp is reported as a sentence, logged and kept on the event's record.
 *
 * The multiplier needs no floor here: the policy schema already refuses one below 1.
 */

/** The deployment's bounds on every event's effective retry policy. */
export interface PolicyLimits {
  /** Most attempts an event may ask for (the first included). */
  readonly maxAttempts: number;
  /** Least `baseDelaySeconds` an event may ask for: the floor of the first retry's ceiling. */
  readonly minBaseDelaySeconds: number;
}

/** The bounds used when the deployment sets none: 25 attempts at most, a base delay of 1 s at least. */
export const DEFAULT_POLICY_LIMITS: PolicyLimits = Object.freeze({
  maxAttempts: 25,
  minBaseDelaySeconds: 1,
});

/**
 * The limits as a deployment gives them (construct props, `cdk.json`, `RICOCHET_POLICY_LIMITS`):
 * each field optional, defaulting to {@link DEFAULT_POLICY_LIMITS}. The ranges are the policy's own.
 */
export const PolicyLimitsSchema = z.strictObject({
  maxAttempts: z
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(100, "must be at most 100")
    .optional(),
  minBaseDelaySeconds: z
    .int("must be a whole number of seconds")
    .min(0, "must not be negative")
    .max(MAX_DELAY_LIMIT_SECONDS)
    .optional(),
});
export type PolicyLimitsOverride = z.infer<typeof PolicyLimitsSchema>;

/** Fills the fields a deployment left out with {@link DEFAULT_POLICY_LIMITS}. */
export const completePolicyLimits = (override: PolicyLimitsOverride = {}): PolicyLimits =>
  Object.freeze({
    maxAttempts: override.maxAttempts ?? DEFAULT_POLICY_LIMITS.maxAttempts,
    minBaseDelaySeconds: override.minBaseDelaySeconds ?? DEFAULT_POLICY_LIMITS.minBaseDelaySeconds,
  });

/**
 * Where `policy` lies outside `limits`, one problem per field, at the policy field's path. Used to
 * refuse a deployment whose own default policy breaks its own limits.
 */
export const policyLimitConflicts = (policy: RetryPolicy, limits: PolicyLimits): InputProblem[] => [
  ...(policy.maxAttempts > limits.maxAttempts
    ? [
        {
          path: "maxAttempts",
          message: `${policy.maxAttempts} is above the ceiling policyLimits.maxAttempts (${limits.maxAttempts})`,
        },
      ]
    : []),
  ...(policy.baseDelaySeconds < limits.minBaseDelaySeconds
    ? [
        {
          path: "baseDelaySeconds",
          message: `${policy.baseDelaySeconds} is below the floor policyLimits.minBaseDelaySeconds (${limits.minBaseDelaySeconds})`,
        },
      ]
    : []),
];

/** A policy brought within the limits, and what was changed, as sentences for people. */
export interface LimitedPolicy {
  readonly policy: RetryPolicy;
  /** Empty when the policy already lay within the limits (the policy is then the input itself). */
  readonly adjustments: readonly string[];
}

/**
 * Clamps a resolved policy to the deployment's limits: `maxAttempts` lowered to the ceiling,
 * `baseDelaySeconds` raised to the floor, and `maxDelaySeconds` raised with it where it would
 * otherwise fall below the base (a policy must keep base ≤ max). Every other field is kept.
 */
export const applyPolicyLimits = (policy: RetryPolicy, limits: PolicyLimits): LimitedPolicy => {
  const adjustments: string[] = [];
  let { maxAttempts, baseDelaySeconds, maxDelaySeconds } = policy;
  if (maxAttempts > limits.maxAttempts) {
    adjustments.push(
      `maxAttempts ${maxAttempts} lowered to the deployment's ceiling ${limits.maxAttempts}`,
    );
    maxAttempts = limits.maxAttempts;
  }
  if (baseDelaySeconds < limits.minBaseDelaySeconds) {
    adjustments.push(
      `baseDelaySeconds ${baseDelaySeconds} raised to the deployment's floor ${limits.minBaseDelaySeconds}`,
    );
    baseDelaySeconds = limits.minBaseDelaySeconds;
  }
  if (maxDelaySeconds < baseDelaySeconds) {
    adjustments.push(
      `maxDelaySeconds ${maxDelaySeconds} raised to ${baseDelaySeconds} to stay at or above the base delay`,
    );
    maxDelaySeconds = baseDelaySeconds;
  }
  if (adjustments.length === 0) return { policy, adjustments };
  return {
    policy: Object.freeze({ ...policy, maxAttempts, baseDelaySeconds, maxDelaySeconds }),
    adjustments,
  };
};
