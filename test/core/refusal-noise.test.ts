import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  atCut,
  DEFAULT_REFUSAL_NOISE_SETTINGS,
  isNoise,
  judgedNoise,
  judgedWith,
  NO_REFUSAL_NOISE,
  NO_TRACKS,
  type RefusalTracks,
  type TrackedCall,
  tracked,
} from "../../lib/core/refusal-noise.js";

/*
 * Telling a target's random 429s from a quota's (issue #35): where a call counts against the
 * last cut, what the pooled counts say, and when a 429 is taken for noise.
 */

const settings = DEFAULT_REFUSAL_NOISE_SETTINGS;
const CUT = 10_000;
const LOCKOUT = 1_000;

const call = (sentAtMs: number, endedAtMs: number, refused = false): TrackedCall => ({
  refused,
  sentAtMs,
  endedAtMs,
  lastCutAtMs: CUT,
  lockoutMs: LOCKOUT,
});

const tracks = (lockout: [number, number], after: [number, number]): RefusalTracks => ({
  lockoutCalls: lockout[0],
  lockoutRefused: lockout[1],
  afterCalls: after[0],
  afterRefused: after[1],
});

describe("where a call counts against the last cut", () => {
  it.each<[string, TrackedCall, RefusalTracks]>([
    ["answered during the lockout", call(CUT - 50, CUT + 10, true), tracks([1, 1], [0, 0])],
    [
      "answered as the lockout ends: after it",
      call(CUT + LOCKOUT, CUT + LOCKOUT + 50),
      tracks([0, 0], [1, 0]),
    ],
    [
      "sent within the window after the lockout",
      call(CUT + 2_500, CUT + 2_550, true),
      tracks([0, 0], [1, 1]),
    ],
    ["sent before the lockout, answered after it", call(CUT + 900, CUT + 1_100), NO_TRACKS],
    ["sent past the window", call(CUT + LOCKOUT + settings.afterWindowMs, CUT + 3_100), NO_TRACKS],
    ["answered before the cut", call(CUT - 100, CUT - 50), NO_TRACKS],
    ["no cut yet", { ...call(CUT, CUT + 10), lastCutAtMs: undefined }, NO_TRACKS],
  ])("%s", (_name, ended, expected) => {
    expect(tracked(NO_REFUSAL_NOISE, ended).tracks).toEqual(expected);
  });

  it("averages every call into the recent share, counted in a track or not", () => {
    const once = tracked(NO_REFUSAL_NOISE, call(0, 50, true));
    expect(once.recentShare).toBe(1);
    const twice = tracked(once, call(100, 150));
    expect(twice.recentShare).toBeCloseTo(1 - settings.recentWeight);
  });
});

describe("what the pooled counts say", () => {
  it.each<[string, RefusalTracks, number | undefined, number | undefined]>([
    ["alike: the share is the noise", tracks([200, 10], [300, 15]), undefined, 0.05],
    [
      "a quota: many refused in the lockout, few after",
      tracks([200, 60], [300, 2]),
      0.05,
      undefined,
    ],
    ["a quota with nothing refused after", tracks([100, 20], [100, 0]), 0.05, undefined],
    ["too few calls after: what was known", tracks([200, 10], [10, 1]), 0.03, 0.03],
    ["too few refusals: what was known", tracks([200, 1], [300, 1]), 0.04, 0.04],
    ["alike but above the most noise can be", tracks([200, 40], [300, 60]), undefined, undefined],
    [
      "more refused after than in the lockout: noise",
      tracks([200, 4], [300, 12]),
      undefined,
      0.032,
    ],
  ])("%s", (_name, pooled, known, expected) => {
    const judged = judgedNoise(pooled, known);
    if (expected === undefined) expect(judged).toBeUndefined();
    else expect(judged).toBeCloseTo(expected, 3);
  });

  it("never learns a noise above the most it can be, nor below nothing", () => {
    const count = fc.integer({ min: 0, max: 10_000 });
    fc.assert(
      fc.property(count, count, count, count, (lc, lr, ac, ar) => {
        const pooled = tracks([lc, Math.min(lr, lc)], [ac, Math.min(ar, ac)]);
        const judged = judgedNoise(pooled, undefined);
        return judged === undefined || (judged >= 0 && judged <= settings.maxNoiseShare);
      }),
    );
  });

  it("halves the counts every half-life, at the cut", () => {
    const noise = { tracks: tracks([100, 10], [200, 20]), decayedAtMs: 0 };
    const cut = atCut(noise, undefined, settings.halfLifeMs, 10);
    expect(cut.tracks).toEqual(tracks([50, 5], [100, 10]));
    expect(cut.decayedAtMs).toBe(settings.halfLifeMs);
  });

  // A rate far below what the target was seen to admit in one second: 10 against 100.
  const collapsed = { peakAdmittedPerSecond: 100 };

  it("judges its own counts pooled with the others'", () => {
    const own = { tracks: tracks([15, 1], [15, 1]), ...collapsed }; // too few alone
    expect(atCut(own, undefined, 0, 10).noiseShare).toBeUndefined();
    const pooled = atCut(own, tracks([185, 9], [285, 14]), 0, 10);
    expect(pooled.noiseShare).toBeCloseTo(0.05, 3);
  });

  it.each([
    { name: "a rate below a third of the peak: learned", rate: 30, peak: 100, expected: 0.05 },
    { name: "a rate at a third of the peak or more: not learned", rate: 34, peak: 100 },
    { name: "no peak seen yet: not learned", rate: 10 },
    {
      name: "near the peak, a noise known is kept",
      rate: 90,
      peak: 100,
      known: 0.04,
      expected: 0.04,
    },
  ])("$name", ({ rate, peak, known, expected }) => {
    const noise = {
      tracks: tracks([200, 10], [300, 15]),
      peakAdmittedPerSecond: peak,
      noiseShare: known,
    };
    const judged = judgedWith(noise, undefined, rate).noiseShare;
    if (expected === undefined) expect(judged).toBeUndefined();
    else expect(judged).toBeCloseTo(expected, 3);
  });

  it("counts the calls admitted in each second, and keeps the most as the peak", () => {
    let noise = NO_REFUSAL_NOISE;
    for (const [endedAtMs, refused] of [
      [0, false],
      [100, false],
      [200, true],
      [900, false],
      [1_100, false],
      [3_500, false],
    ] as const)
      noise = tracked(noise, {
        ...call(endedAtMs - 10, endedAtMs, refused),
        lastCutAtMs: undefined,
      });
    expect(noise.peakAdmittedPerSecond).toBe(3);
    expect(noise.admittedInSecond).toBe(1);
  });
});

describe("the calls admitted in the last full second", () => {
  const after = (ends: readonly (readonly [number, boolean])[]) =>
    ends.reduce(
      (noise, [endedAtMs, refused]) =>
        tracked(noise, { ...call(endedAtMs - 10, endedAtMs, refused), lastCutAtMs: undefined }),
      NO_REFUSAL_NOISE,
    );
  const secondZero = [
    [0, false],
    [100, true],
    [900, false],
  ] as const;
  it.each<[string, readonly (readonly [number, boolean])[], number | undefined]>([
    ["none before a second has ended", secondZero, undefined],
    ["the second before's, refused ones left out", [...secondZero, [1_100, false]], 2],
    ["none when no call ended in the second before", [...secondZero, [2_100, false]], 0],
  ])("%s", (_name, ends, expected) => {
    expect(after(ends).admittedLastSecond).toBe(expected);
  });
});

describe("whether a 429 is noise", () => {
  const near = settings.noiseFactor * 0.05 + settings.noiseMargin;
  it.each<[string, number | undefined, number, boolean]>([
    ["no noise learned", undefined, 0.05, false],
    ["recent refusals at the noise", 0.05, 0.05, true],
    ["recent refusals at the bound", 0.05, near, true],
    ["recent refusals above it: overload again", 0.05, near + 0.001, false],
  ])("%s", (_name, noiseShare, recentShare, expected) => {
    expect(isNoise({ tracks: NO_TRACKS, noiseShare, recentShare })).toBe(expected);
  });
});
