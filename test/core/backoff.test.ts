import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DECORRELATED_GROWTH,
  delayRange,
  drawDelaySeconds,
  retryCeilingSeconds,
} from "../../lib/core/backoff.js";
import { Jitter, MAX_DELAY_LIMIT_SECONDS, type RetryPolicy } from "../../lib/core/policy.js";
import { aPolicy, constantRandom, TOP_OF_RANGE } from "../support/factories.js";
import { aRandomValue, aValidPolicy } from "./arbitraries.js";

describe("retryCeilingSeconds", () => {
  it.each([
    // base, multiplier, maxDelay, retry, ceiling
    [5, 2, 300, 1, 5],
    [5, 2, 300, 2, 10],
    [5, 2, 300, 6, 160],
    [5, 2, 300, 7, 300],
    [5, 2, 300, 20, 300],
    [1, 3, 900, 4, 27],
    [10, 1, 900, 50, 10],
    [3, 1.5, 900, 3, 6],
    [0, 2, 900, 5, 0],
    [7, 10, 7, 2, 7],
  ])(
    "base %i × %f^(n-1) capped at %i gives retry %i a ceiling of %i",
    (base, multiplier, maxDelay, retry, ceiling) => {
      const policy = aPolicy({ baseDelaySeconds: base, multiplier, maxDelaySeconds: maxDelay });
      expect(retryCeilingSeconds(policy, retry)).toBe(ceiling);
    },
  );

  it("stays finite and capped for the largest multiplier and retry number", () => {
    const policy = aPolicy({
      maxAttempts: 100,
      multiplier: 10,
      maxDelaySeconds: MAX_DELAY_LIMIT_SECONDS,
    });
    expect(retryCeilingSeconds(policy, 99)).toBe(MAX_DELAY_LIMIT_SECONDS);
  });
});

describe("delayRange", () => {
  const policyWith = (jitter: RetryPolicy["jitter"]) =>
    aPolicy({ baseDelaySeconds: 5, multiplier: 2, maxDelaySeconds: 300, jitter });

  it.each([
    // jitter, retry, ceiling, min, max
    [Jitter.NONE, 1, 5, 5, 5],
    [Jitter.NONE, 8, 300, 300, 300],
    [Jitter.FULL, 1, 5, 0, 5],
    [Jitter.FULL, 7, 300, 0, 300],
    [Jitter.EQUAL, 1, 5, 2, 5],
    [Jitter.EQUAL, 2, 10, 5, 10],
    [Jitter.EQUAL, 3, 20, 10, 20],
    // Decorrelated without a previous delay: the widest range retry n can reach, base × 3^n.
    [Jitter.DECORRELATED, 1, 5, 5, 15],
    [Jitter.DECORRELATED, 2, 10, 5, 45],
    [Jitter.DECORRELATED, 4, 40, 5, 300],
  ])("%s jitter draws retry %i (ceiling %i) from %i to %i", (jitter, retry, ceiling, min, max) => {
    expect(delayRange(policyWith(jitter), retry)).toEqual({
      ceilingSeconds: ceiling,
      minSeconds: min,
      maxSeconds: max,
    });
  });

  it.each([
    // previous delay, min, max: min(cap, random(base, previous × 3))
    [5, 5, 15],
    [1, 5, 5],
    [40, 5, 120],
    [200, 5, 300],
  ])("decorrelated jitter after a %i s delay draws from %i to %i", (previous, min, max) => {
    const range = delayRange(policyWith(Jitter.DECORRELATED), 3, previous);
    expect([range.minSeconds, range.maxSeconds]).toEqual([min, max]);
  });
});

describe("drawDelaySeconds", () => {
  it.each([
    // jitter, retry, delay at the bottom of the random range, at the top
    [Jitter.NONE, 3, 20, 20],
    [Jitter.FULL, 3, 0, 20],
    [Jitter.EQUAL, 3, 10, 20],
    [Jitter.DECORRELATED, 1, 5, 15],
  ])("%s jitter draws retry %i between %i and %i inclusive", (jitter, retry, bottom, top) => {
    const policy = aPolicy({ baseDelaySeconds: 5, multiplier: 2, maxDelaySeconds: 300, jitter });
    expect(drawDelaySeconds(policy, retry, constantRandom(0))).toBe(bottom);
    expect(drawDelaySeconds(policy, retry, constantRandom(TOP_OF_RANGE))).toBe(top);
  });

  it("grows decorrelated delays from the previous delay, not the retry number", () => {
    const policy = aPolicy({ baseDelaySeconds: 5, maxDelaySeconds: 900, jitter: "decorrelated" });
    expect(drawDelaySeconds(policy, 1, constantRandom(TOP_OF_RANGE), 100)).toBe(
      100 * DECORRELATED_GROWTH,
    );
  });

  it("draws every delay as a whole number of seconds within its range, for any valid policy", () => {
    fc.assert(
      fc.property(
        aValidPolicy(),
        fc.integer({ min: 1, max: 99 }),
        aRandomValue(),
        fc.option(fc.integer({ min: 0, max: MAX_DELAY_LIMIT_SECONDS }), { nil: undefined }),
        (policy, retry, value, previous) => {
          const delay = drawDelaySeconds(policy, retry, constantRandom(value), previous);
          const range = delayRange(
            policy,
            retry,
            policy.jitter === "decorrelated" ? (previous ?? policy.baseDelaySeconds) : undefined,
          );
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(range.minSeconds);
          expect(delay).toBeLessThanOrEqual(range.maxSeconds);
          expect(delay).toBeLessThanOrEqual(policy.maxDelaySeconds);
          if (policy.jitter !== "decorrelated") {
            expect(range.maxSeconds).toBe(retryCeilingSeconds(policy, retry));
          }
        },
      ),
    );
  });
});
