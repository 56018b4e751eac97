import { describe, expect, it } from "vitest";
import { percentile, retryGapSamples } from "../../bench/support/schedule-error.js";
import type { ReceiverCall } from "../../bench/support/seeded-receiver.js";

const calls = (...entries: [startedAt: number, status: number][]): ReceiverCall[] =>
  entries.map(([startedAt, status], callIndex) => ({ callIndex, startedAt, status }));

describe("retryGapSamples", () => {
  it.each([
    ["a first call that succeeded has no retry", calls([0, 200]), []],
    ["a failure followed by the next call gives one gap", calls([0, 503], [1_020, 200]), [1_020]],
    [
      "each failure that was retried gives its own gap",
      calls([0, 503], [1_000, 503], [2_500, 200]),
      [1_000, 1_500],
    ],
    ["a failure never retried gives none", calls([0, 200], [10, 503]), []],
    ["a success followed by a duplicate call is not a retry", calls([0, 200], [5, 200]), []],
  ])("%s", (_name, list, expected) => {
    expect(retryGapSamples(new Map([["e-1", list]]))).toEqual(expected);
  });

  it("gathers the gaps of every event", () => {
    const gaps = retryGapSamples(
      new Map([
        ["e-1", calls([0, 503], [900, 200])],
        ["e-2", calls([100, 503], [1_200, 200])],
      ]),
    );
    expect(gaps.sort((a, b) => a - b)).toEqual([900, 1_100]);
  });
});

describe("percentile", () => {
  it.each([
    [[], 50, null],
    [[7], 99, 7],
    [[1, 2, 3, 4], 50, 2],
    [[4, 3, 2, 1], 99, 4],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 90, 90],
  ])("of %j at p%i is %s (nearest rank)", (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });
});
