import { describe, expect, it } from "vitest";
import { InvalidPolicyError } from "../../lib/core/errors.js";
import { OrchestratorOnlyChecks } from "../../lib/core/orchestrator-only-checks.js";
import {
  DEFAULT_POLICY,
  type PolicyOverride,
  type RetryPolicy,
  resolvePolicy,
} from "../../lib/core/policy.js";

const problemsOf = (base: RetryPolicy, ...overrides: PolicyOverride[]) => {
  try {
    resolvePolicy(base, ...overrides);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidPolicyError);
    return (error as InvalidPolicyError).problems;
  }
  throw new Error("expected the policy to be rejected");
};

describe("resolvePolicy", () => {
  it("returns the base policy, frozen, when nothing overrides it", () => {
    const policy = resolvePolicy(DEFAULT_POLICY);
    expect(policy).toEqual(DEFAULT_POLICY);
    expect(Object.isFrozen(policy)).toBe(true);
  });

  it("applies overrides in order, the later winning, and skips undefined fields", () => {
    const policy = resolvePolicy(DEFAULT_POLICY, { maxAttempts: 3, jitter: "equal" }, undefined, {
      maxAttempts: 4,
      jitter: undefined,
      deadlineSeconds: 60,
    });
    expect(policy).toEqual({
      ...DEFAULT_POLICY,
      maxAttempts: 4,
      jitter: "equal",
      deadlineSeconds: 60,
    });
  });

  it.each<[string, PolicyOverride, string, string]>([
    ["a negative base", { baseDelaySeconds: -1 }, "baseDelaySeconds", "must not be negative"],
    [
      "a negative max delay",
      { maxDelaySeconds: -5, baseDelaySeconds: 0 },
      "maxDelaySeconds",
      "must not be negative",
    ],
    ["a zero multiplier", { multiplier: 0 }, "multiplier", "must be at least 1"],
    ["a shrinking multiplier", { multiplier: 0.5 }, "multiplier", "must be at least 1"],
    ["a huge multiplier", { multiplier: 11 }, "multiplier", "must be at most 10"],
    [
      "a base above the max",
      { baseDelaySeconds: 60, maxDelaySeconds: 30 },
      "baseDelaySeconds",
      "must not exceed maxDelaySeconds (30)",
    ],
    ["non-integer attempts", { maxAttempts: 2.5 }, "maxAttempts", "must be a whole number"],
    ["zero attempts", { maxAttempts: 0 }, "maxAttempts", "must be at least 1"],
    ["too many attempts", { maxAttempts: 101 }, "maxAttempts", "must be at most 100"],
    [
      "a fractional base",
      { baseDelaySeconds: 1.5 },
      "baseDelaySeconds",
      "must be a whole number of seconds",
    ],
    ["a zero deadline", { deadlineSeconds: 0 }, "deadlineSeconds", "must be at least 1"],
    [
      "a negative Retry-After cap",
      { maxRetryAfterSeconds: -1 },
      "maxRetryAfterSeconds",
      "must not be negative",
    ],
    ["an unknown jitter", { jitter: "random" as "full" }, "jitter", "expected one of"],
    [
      "an unknown field",
      { maxRetries: 3 } as PolicyOverride,
      "maxRetries",
      "is not a recognized field",
    ],
    ["a status outside 100–599", { retryOnStatus: [600] }, "retryOnStatus.0", ""],
    [
      "a status in both retryOn and noRetryOn",
      { retryOnStatus: [503, 404], noRetryOnStatus: [404, "timeout"] },
      "retryOnStatus",
      "listed in both retryOnStatus and noRetryOnStatus: 404",
    ],
    [
      "a category in both retryOn and noRetryOn",
      { retryOnStatus: ["timeout"], noRetryOnStatus: ["timeout"] },
      "retryOnStatus",
      "timeout",
    ],
    [
      "both Lambda error-type lists, naming the never-retried ones",
      { noRetryErrorTypes: ["ValidationError"], retryOnlyErrorTypes: ["Sandbox.Timedout"] },
      "retryOnlyErrorTypes",
      "cannot be set together with noRetryErrorTypes (ValidationError)",
    ],
    [
      "an empty error type",
      { noRetryErrorTypes: [""] },
      "noRetryErrorTypes.0",
      "must not be empty",
    ],
    [
      "an error type with a space",
      { retryOnlyErrorTypes: ["Type Error"] },
      "retryOnlyErrorTypes.0",
      "without spaces",
    ],
    [
      "a verdict type in an error-type list",
      { noRetryErrorTypes: ["RicochetRetryError"] },
      "noRetryErrorTypes.0",
      "is a verdict the function gives",
    ],
    [
      "more error types than the limit",
      { noRetryErrorTypes: Array.from({ length: 51 }, (_, i) => `E${i}`) },
      "noRetryErrorTypes",
      "",
    ],
  ])("rejects %s, naming the field", (_, override, path, fragment) => {
    const problems = problemsOf(DEFAULT_POLICY, override);
    expect(problems).toContainEqual(
      expect.objectContaining({ path, message: expect.stringContaining(fragment) }),
    );
  });

  it("rejects an override that only conflicts with the base it is applied to", () => {
    const base = resolvePolicy(DEFAULT_POLICY, { maxDelaySeconds: 10, baseDelaySeconds: 2 });
    expect(problemsOf(base, { baseDelaySeconds: 20 })).toEqual([
      {
        path: "baseDelaySeconds",
        message: "must not exceed maxDelaySeconds (10)",
        check: OrchestratorOnlyChecks.POLICY_MERGE.id,
      },
    ]);
  });

  it("lets an override swap the base's never-retried error types for an allow-list only by clearing them", () => {
    const base = resolvePolicy(DEFAULT_POLICY, { noRetryErrorTypes: ["ValidationError"] });
    expect(problemsOf(base, { retryOnlyErrorTypes: ["Sandbox.Timedout"] })).toHaveLength(1);
    expect(
      resolvePolicy(base, { noRetryErrorTypes: [], retryOnlyErrorTypes: ["Sandbox.Timedout"] }),
    ).toMatchObject({ noRetryErrorTypes: [], retryOnlyErrorTypes: ["Sandbox.Timedout"] });
  });

  it("reports every problem of an override at once", () => {
    const problems = problemsOf(DEFAULT_POLICY, {
      maxAttempts: 0,
      multiplier: 0,
      baseDelaySeconds: -1,
    });
    expect(problems.map((p) => p.path).sort()).toEqual([
      "baseDelaySeconds",
      "maxAttempts",
      "multiplier",
    ]);
  });

  it("puts every problem in the error's one-line message", () => {
    expect(() => resolvePolicy(DEFAULT_POLICY, { maxAttempts: 0, jitter: "none" })).toThrow(
      "invalid retry policy: maxAttempts: must be at least 1",
    );
  });
});
