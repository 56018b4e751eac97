import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PolicyOverride, resolvePolicy } from "../../lib/core/policy.js";
import {
  applyPolicyLimits,
  completePolicyLimits,
  DEFAULT_POLICY_LIMITS,
  type PolicyLimits,
  policyLimitConflicts,
} from "../../lib/core/policy-limits.js";
import { aPolicy } from "../support/factories.js";
import { aValidPolicy } from "./arbitraries.js";

const limits: PolicyLimits = { maxAttempts: 20, minBaseDelaySeconds: 2 };

const aLimits = (): fc.Arbitrary<PolicyLimits> =>
  fc.record({
    maxAttempts: fc.integer({ min: 1, max: 100 }),
    minBaseDelaySeconds: fc.integer({ min: 0, max: 3600 }),
  });

const within = (
  policy: { maxAttempts: number; baseDelaySeconds: number },
  bounds: PolicyLimits,
): boolean =>
  policy.maxAttempts <= bounds.maxAttempts && policy.baseDelaySeconds >= bounds.minBaseDelaySeconds;

describe("applyPolicyLimits", () => {
  it.each<[string, PolicyOverride, PolicyOverride, string[]]>([
    ["a policy within the limits", { maxAttempts: 20, baseDelaySeconds: 2 }, {}, []],
    [
      "too many attempts",
      { maxAttempts: 100 },
      { maxAttempts: 20 },
      ["maxAttempts 100 lowered to the deployment's ceiling 20"],
    ],
    [
      "a base delay under the floor",
      { baseDelaySeconds: 0 },
      { baseDelaySeconds: 2 },
      ["baseDelaySeconds 0 raised to the deployment's floor 2"],
    ],
    [
      "a max delay that the raised base would pass",
      { maxAttempts: 100, baseDelaySeconds: 0, maxDelaySeconds: 1 },
      { maxAttempts: 20, baseDelaySeconds: 2, maxDelaySeconds: 2 },
      [
        "maxAttempts 100 lowered to the deployment's ceiling 20",
        "baseDelaySeconds 0 raised to the deployment's floor 2",
        "maxDelaySeconds 1 raised to 2 to stay at or above the base delay",
      ],
    ],
  ])("clamps %s", (_, override, changed, adjustments) => {
    const policy = aPolicy(override);
    const limited = applyPolicyLimits(policy, limits);
    expect(limited.adjustments).toEqual(adjustments);
    expect(limited.policy).toEqual({ ...policy, ...changed });
  });

  it("keeps every field it has no limit for", () => {
    const policy = aPolicy({
      maxAttempts: 50,
      baseDelaySeconds: 0,
      multiplier: 3,
      jitter: "decorrelated",
      deadlineSeconds: 600,
      retryOnStatus: [409],
    });
    const { policy: limited } = applyPolicyLimits(policy, limits);
    expect(limited).toMatchObject({
      multiplier: 3,
      jitter: "decorrelated",
      deadlineSeconds: 600,
      retryOnStatus: [409],
      maxDelaySeconds: policy.maxDelaySeconds,
    });
    expect(Object.isFrozen(limited)).toBe(true);
  });

  it("puts any policy within any limits, a valid policy still, and leaves one already within alone", () => {
    fc.assert(
      fc.property(aValidPolicy(), aLimits(), (policy, bounds) => {
        const { policy: limited, adjustments } = applyPolicyLimits(policy, bounds);
        expect(within(limited, bounds)).toBe(true);
        expect(limited.multiplier).toBeGreaterThanOrEqual(1);
        // Still a policy the schema accepts (base ≤ max, every field in range).
        expect(resolvePolicy(limited)).toEqual(limited);
        if (within(policy, bounds)) {
          expect(limited).toBe(policy);
          expect(adjustments).toEqual([]);
        } else {
          expect(adjustments.length).toBeGreaterThan(0);
        }
      }),
    );
  });

  it("never lengthens the budget nor shortens the first retry's ceiling", () => {
    fc.assert(
      fc.property(aValidPolicy(), aLimits(), (policy, bounds) => {
        const { policy: limited } = applyPolicyLimits(policy, bounds);
        expect(limited.maxAttempts).toBeLessThanOrEqual(policy.maxAttempts);
        expect(limited.baseDelaySeconds).toBeGreaterThanOrEqual(policy.baseDelaySeconds);
        expect(limited.maxDelaySeconds).toBeGreaterThanOrEqual(policy.maxDelaySeconds);
      }),
    );
  });
});

describe("policyLimitConflicts", () => {
  it.each<[string, PolicyOverride, string[]]>([
    ["a policy within the limits", { maxAttempts: 20, baseDelaySeconds: 2 }, []],
    ["too many attempts", { maxAttempts: 21, baseDelaySeconds: 2 }, ["maxAttempts"]],
    ["too short a base", { maxAttempts: 20, baseDelaySeconds: 1 }, ["baseDelaySeconds"]],
    ["both", { maxAttempts: 21, baseDelaySeconds: 0 }, ["maxAttempts", "baseDelaySeconds"]],
  ])("reports %s", (_, override, paths) => {
    expect(policyLimitConflicts(aPolicy(override), limits).map((p) => p.path)).toEqual(paths);
  });

  it("names the limit a conflict breaks", () => {
    expect(policyLimitConflicts(aPolicy({ maxAttempts: 30 }), limits)).toEqual([
      { path: "maxAttempts", message: "30 is above the ceiling policyLimits.maxAttempts (20)" },
    ]);
  });
});

describe("completePolicyLimits", () => {
  it("defaults to a ceiling of 25 attempts and a floor of 1 s, within which the built-in policy lies", () => {
    expect(completePolicyLimits()).toEqual({ maxAttempts: 25, minBaseDelaySeconds: 1 });
    expect(completePolicyLimits({ maxAttempts: 5 })).toEqual({
      maxAttempts: 5,
      minBaseDelaySeconds: DEFAULT_POLICY_LIMITS.minBaseDelaySeconds,
    });
    expect(policyLimitConflicts(aPolicy(), DEFAULT_POLICY_LIMITS)).toEqual([]);
  });
});
