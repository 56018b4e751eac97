import { describe, expect, it } from "vitest";
import {
  isEngaged,
  learnedLimitOf,
  limitLowered,
  noiseVerdictOf,
} from "../../lib/core/adaptive-engagement.js";
import {
  type AdaptiveLimit,
  type AdaptiveLimitSettings,
  adaptiveSettingsFor,
  LimitChange,
  startingLimit,
} from "../../lib/core/adaptive-limit.js";
import { NO_TRACKS } from "../../lib/core/refusal-noise.js";
import { FIXED_NOW_MS } from "../support/factories.js";

const NOW = FIXED_NOW_MS;
const KEY = "https://partner.example/hook";
const settings: AdaptiveLimitSettings = adaptiveSettingsFor(
  { maxCallsPerSecond: 1_000, maxConcurrentCalls: 100 },
  1_000,
);
const start = startingLimit(NOW, settings);
const limit = (fields: Partial<AdaptiveLimit>): AdaptiveLimit => ({ ...start, ...fields });

describe("whether an adaptive limit holds calls back", () => {
  it.each([
    ["not at its ceiling, as a target that never pushed back", start, false],
    ["when its rate was cut below the ceiling", limit({ callsPerSecond: 400 }), true],
    ["while a Retry-After pauses it", limit({ pauseUntilMs: NOW + 30_000 }), true],
    ["not once the pause has passed", limit({ pauseUntilMs: NOW - 1 }), false],
    ["while its breaker is open", limit({ breakerOpen: true }), true],
    ["when overloads taught how many calls it takes at once", limit({ concurrencyLimit: 8 }), true],
  ])("%s", (_name, current, engaged) => {
    expect(isEngaged(current, NOW, settings)).toBe(engaged);
  });
});

describe("which changes operators are told of", () => {
  it.each([
    [
      "a rate cut on an overload",
      limit({ callsPerSecond: 500, reason: LimitChange.OVERLOAD }),
      true,
    ],
    ["a rate cut on latency", limit({ callsPerSecond: 500, reason: LimitChange.LATENCY }), true],
    [
      "a concurrency cut on an overload",
      limit({ concurrencyLimit: 4, reason: LimitChange.OVERLOAD }),
      true,
    ],
    [
      "a pause on a Retry-After",
      limit({ pauseUntilMs: NOW + 60_000, reason: LimitChange.RETRY_AFTER }),
      true,
    ],
    [
      "the breaker's zero, told by the breaker",
      limit({ callsPerSecond: 500, reason: LimitChange.BREAKER_OPEN }),
      false,
    ],
    ["an overload that cut nothing", limit({ reason: LimitChange.OVERLOAD }), false],
    ["an increase", limit({ callsPerSecond: 1_000, reason: LimitChange.INCREASE }), false],
  ])("tells %s: %s", (_name, after, told) => {
    expect(limitLowered(limit({ callsPerSecond: 1_000 }), after)).toBe(told);
  });
});

describe("a target's 429s read as noise, as operators are told", () => {
  const noise = (noiseShare?: number) =>
    limit({ noise: { tracks: NO_TRACKS, ...(noiseShare === undefined ? {} : { noiseShare }) } });
  it.each([
    ["nothing learned either side", limit({}), noise(), undefined],
    ["a noise learned", noise(), noise(0.05), { kind: "learned", refusedShare: 0.05 }],
    ["a noise forgotten", noise(0.05), noise(), { kind: "forgotten" }],
    ["a noise share moved, not told", noise(0.05), noise(0.06), undefined],
  ])("%s", (_name, before, after, expected) => {
    expect(noiseVerdictOf(before, after)).toEqual(expected);
  });
});

describe("a learned limit as operators see it", () => {
  it("shows nothing for a limit that holds nothing back", () => {
    expect(learnedLimitOf(KEY, start, NOW, settings)).toBeUndefined();
  });

  it("shows a cut limit's rate, ceiling, reason and when it changed", () => {
    const cut = limit({ callsPerSecond: 400, reason: LimitChange.OVERLOAD, changedAtMs: NOW - 5 });
    expect(learnedLimitOf(KEY, cut, NOW, settings)).toMatchObject({
      key: KEY,
      callsPerSecond: 400,
      ceilingPerSecond: 1_000,
      reason: LimitChange.OVERLOAD,
      changedAtMs: NOW - 5,
    });
  });

  it.each([
    ["its rate and what it heard of the others, summed", NOW - 1_000, 1_000],
    [
      "nothing summed once what it heard is older than the bound",
      NOW - settings.othersMaxAgeMs - 1,
      undefined,
    ],
  ])("shows as the target's rate %s", (_name, seenAtMs, summed) => {
    const others = { perSecond: 600, instances: 3, seenAtMs };
    const cut = limit({ callsPerSecond: 400, others });
    expect(learnedLimitOf(KEY, cut, NOW, settings)?.summedPerSecond).toBe(summed);
  });
});
