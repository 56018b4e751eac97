import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { delayRange } from "../../lib/core/backoff.js";
import { ConfigurationError } from "../../lib/core/errors.js";
import { explainPolicy, percentile } from "../../lib/core/explain.js";
import { seededRandom } from "../../lib/core/random.js";
import { aPolicy, constantRandom } from "../support/factories.js";
import { aValidPolicy } from "./arbitraries.js";

describe("percentile", () => {
  const values = Float64Array.from({ length: 100 }, (_, i) => i + 1);

  it.each([
    [50, 50],
    [90, 90],
    [99, 99],
    [100, 100],
    [0.1, 1],
  ])("the nearest-rank p%d of 1..100 is %i", (p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });

  it("is the value itself for a single value", () => {
    expect(percentile([7], 50)).toBe(7);
  });

  it("refuses an empty list", () => {
    expect(() => percentile([], 50)).toThrow(RangeError);
  });
});

describe("explainPolicy", () => {
  it("gives a no-jitter policy its exact ceilings and their sum", () => {
    const policy = aPolicy({
      baseDelaySeconds: 5,
      maxDelaySeconds: 300,
      maxAttempts: 9,
      jitter: "none",
    });
    const explanation = explainPolicy(policy, { samples: 10, random: seededRandom(1) });
    expect(explanation.retries.map((r) => r.ceilingSeconds)).toEqual([
      5, 10, 20, 40, 80, 160, 300, 300,
    ]);
    expect(explanation.retries[0]).toEqual({
      retry: 1,
      ceilingSeconds: 5,
      minSeconds: 5,
      maxSeconds: 5,
      p50Seconds: 5,
      p90Seconds: 5,
      p99Seconds: 5,
    });
    expect(explanation.totalMaxSeconds).toBe(915);
    expect(explanation.totalP50Seconds).toBe(915);
    expect(explanation.policy).toBe(policy);
  });

  it.each([
    ["within the limits", { maxAttempts: 5, baseDelaySeconds: 2 }, true, []],
    [
      "outside the limits",
      { maxAttempts: 6, baseDelaySeconds: 1 },
      false,
      [
        "maxAttempts 6 lowered to the deployment's ceiling 5",
        "baseDelaySeconds 1 raised to the deployment's floor 2",
      ],
    ],
  ])("judges a policy %s, explaining the policy as asked", (_, override, within, adjustments) => {
    const policy = aPolicy(override);
    const limits = { maxAttempts: 5, minBaseDelaySeconds: 2 };
    const explanation = explainPolicy(policy, { samples: 5, random: seededRandom(1), limits });
    expect(explanation).toMatchObject({ limits, withinLimits: within, adjustments });
    expect(explanation.policy).toBe(policy);
    expect(explanation.retries).toHaveLength(policy.maxAttempts - 1);
  });

  it("says nothing of limits when none are given", () => {
    const explanation = explainPolicy(aPolicy(), { samples: 5, random: seededRandom(1) });
    expect(Object.keys(explanation)).not.toContain("limits");
    expect(Object.keys(explanation)).not.toContain("withinLimits");
  });

  it("has no retries and a zero window when maxAttempts is 1", () => {
    const explanation = explainPolicy(aPolicy({ maxAttempts: 1 }), {
      samples: 5,
      random: seededRandom(1),
    });
    expect(explanation).toMatchObject({ retries: [], totalMaxSeconds: 0, totalP50Seconds: 0 });
  });

  it("places full-jitter percentiles near their share of the ceiling", () => {
    const policy = aPolicy({
      baseDelaySeconds: 100,
      maxDelaySeconds: 100,
      maxAttempts: 2,
      jitter: "full",
    });
    const [retry] = explainPolicy(policy, { samples: 20_000, random: seededRandom(7) }).retries;
    // Uniform on 0..100: sampling error at 20 000 draws is well under 2 s.
    expect(retry?.p50Seconds).toBeGreaterThanOrEqual(48);
    expect(retry?.p50Seconds).toBeLessThanOrEqual(52);
    expect(retry?.p90Seconds).toBeGreaterThanOrEqual(88);
    expect(retry?.p90Seconds).toBeLessThanOrEqual(92);
  });

  it("chains decorrelated draws: each sample's delays grow from its previous one", () => {
    const policy = aPolicy({
      baseDelaySeconds: 1,
      maxDelaySeconds: 900,
      maxAttempts: 4,
      jitter: "decorrelated",
    });
    // Always the top of the range: 3, then 9, then 27 (3 × the previous), not 3 × base each time.
    const explanation = explainPolicy(policy, { samples: 3, random: constantRandom(0.999_999) });
    expect(explanation.retries.map((r) => r.p50Seconds)).toEqual([3, 9, 27]);
    expect(explanation.totalP50Seconds).toBe(39);
  });

  it("is replayable from a seed", () => {
    const policy = aPolicy({ jitter: "decorrelated" });
    const run = (seed: number) =>
      explainPolicy(policy, { samples: 500, random: seededRandom(seed) });
    expect(run(42)).toEqual(run(42));
    expect(run(42)).not.toEqual(run(43));
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses %d samples", (samples) => {
    expect(() => explainPolicy(aPolicy(), { samples, random: seededRandom(1) })).toThrow(
      ConfigurationError,
    );
  });

  it("keeps every percentile within the retry's range, in order, for any valid policy", () => {
    fc.assert(
      fc.property(aValidPolicy(), fc.integer(), (policy, seed) => {
        const explanation = explainPolicy(policy, { samples: 50, random: seededRandom(seed) });
        expect(explanation.retries).toHaveLength(policy.maxAttempts - 1);
        for (const r of explanation.retries) {
          expect(delayRange(policy, r.retry)).toEqual({
            ceilingSeconds: r.ceilingSeconds,
            minSeconds: r.minSeconds,
            maxSeconds: r.maxSeconds,
          });
          expect(r.minSeconds).toBeLessThanOrEqual(r.p50Seconds);
          expect(r.p50Seconds).toBeLessThanOrEqual(r.p90Seconds);
          expect(r.p90Seconds).toBeLessThanOrEqual(r.p99Seconds);
          expect(r.p99Seconds).toBeLessThanOrEqual(r.maxSeconds);
        }
        expect(explanation.totalP50Seconds).toBeLessThanOrEqual(explanation.totalMaxSeconds);
      }),
      { numRuns: 50 },
    );
  });
});
