import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { explainPolicy } from "../../lib/core/explain.js";
import { Jitter, type PolicyOverride } from "../../lib/core/policy.js";
import { seededRandom } from "../../lib/core/random.js";
import {
  DEFAULT_SHORT_WINDOW_THRESHOLD_SECONDS,
  describeShortWindow,
  judgeRetryWindow,
  retryWindowSeconds,
} from "../../lib/core/retry-window.js";
import { aPolicy } from "../support/factories.js";
import { aValidPolicy } from "./arbitraries.js";

describe("retryWindowSeconds", () => {
  it.each<[string, PolicyOverride, number]>([
    [
      "Celery's max_retries=3, retry_backoff=1 (the local demo)",
      { maxAttempts: 4, baseDelaySeconds: 1 },
      7,
    ],
    ["the built-in default", {}, 5 + 10 + 20 + 40 + 80 + 160 + 320],
    ["no retries", { maxAttempts: 1 }, 0],
    ["one retry", { maxAttempts: 2, baseDelaySeconds: 30 }, 30],
    ["a cap reached early", { maxAttempts: 5, baseDelaySeconds: 10, maxDelaySeconds: 15 }, 55],
    ["a flat multiplier", { maxAttempts: 11, baseDelaySeconds: 6, multiplier: 1 }, 60],
    ["a base of 0", { maxAttempts: 25, baseDelaySeconds: 0 }, 0],
    [
      "fractional growth, floored per ceiling",
      { maxAttempts: 4, baseDelaySeconds: 3, multiplier: 1.5 },
      3 + 4 + 6,
    ],
  ])("sums the ceilings of %s", (_name, override, seconds) => {
    expect(retryWindowSeconds(aPolicy(override))).toBe(seconds);
  });

  it("is the explanation's most total wait when nothing is drawn above a ceiling", () => {
    fc.assert(
      fc.property(aValidPolicy(), (drawn) => {
        const policy = { ...drawn, jitter: Jitter.NONE };
        const explained = explainPolicy(policy, { samples: 1, random: seededRandom(1) });
        expect(retryWindowSeconds(policy)).toBe(explained.totalMaxSeconds);
      }),
    );
  });
});

describe("judgeRetryWindow", () => {
  it.each<[string, PolicyOverride, number | undefined, boolean]>([
    ["the 7 s trap, by default", { maxAttempts: 4, baseDelaySeconds: 1 }, undefined, true],
    ["the built-in default", {}, undefined, false],
    [
      "a window exactly at the threshold",
      { maxAttempts: 11, baseDelaySeconds: 6, multiplier: 1 },
      60,
      false,
    ],
    [
      "a window one second under it",
      { maxAttempts: 11, baseDelaySeconds: 6, multiplier: 1 },
      61,
      true,
    ],
    ["the trap under a lowered threshold", { maxAttempts: 4, baseDelaySeconds: 1 }, 7, false],
    ["a window of 0 with the judgement off", { baseDelaySeconds: 0 }, 0, false],
    ["a policy that never retries", { maxAttempts: 1 }, undefined, false],
  ])("judges %s", (_name, override, threshold, short) => {
    const window = judgeRetryWindow(aPolicy(override), threshold);
    expect(window.short).toBe(short);
    expect(window.thresholdSeconds).toBe(threshold ?? DEFAULT_SHORT_WINDOW_THRESHOLD_SECONDS);
  });

  it("flags exactly the retrying policies whose window is below the threshold", () => {
    fc.assert(
      fc.property(aValidPolicy(), fc.integer({ min: 0, max: 7200 }), (policy, threshold) => {
        const window = judgeRetryWindow(policy, threshold);
        expect(window.short).toBe(policy.maxAttempts > 1 && retryWindowSeconds(policy) < threshold);
      }),
    );
  });

  it("says how long the retries wait and what to raise", () => {
    expect(
      describeShortWindow(judgeRetryWindow(aPolicy({ maxAttempts: 4, baseDelaySeconds: 1 }))),
    ).toBe(
      "the 3 retries wait at most 7 s in total, under 60 s: a target down for longer than that " +
        "dead-letters every event sent to it meanwhile; raise maxAttempts, baseDelaySeconds or multiplier",
    );
    expect(
      describeShortWindow(judgeRetryWindow(aPolicy({ maxAttempts: 2, baseDelaySeconds: 1 }))),
    ).toMatch(/^the 1 retry waits at most 1 s/);
  });
});
