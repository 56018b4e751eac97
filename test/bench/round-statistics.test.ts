import { describe, expect, it } from "vitest";
import { median, pairedRatio } from "../../bench/support/round-statistics.js";

describe("median", () => {
  it.each([
    [[], Number.NaN],
    [[5], 5],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
  ])("of %j is %d", (values, expected) => {
    expect(median(values)).toBe(expected);
  });
});

describe("pairedRatio", () => {
  it.each([
    ["no rounds", [], [], null],
    ["one round", [90], [100], { median: 0.9, min: 0.9, max: 0.9 }],
    [
      "rounds are paired by position, not sorted first",
      [100, 200, 150],
      [200, 100, 150],
      { median: 1, min: 0.5, max: 2 },
    ],
    ["a round the other did not run is left out", [100, 100], [50], { median: 2, min: 2, max: 2 }],
    [
      "a round where the other measured nothing is left out",
      [100, 80],
      [0, 100],
      {
        median: 0.8,
        min: 0.8,
        max: 0.8,
      },
    ],
  ])("%s", (_name, ours, theirs, expected) => {
    expect(pairedRatio(ours, theirs)).toEqual(expected);
  });
});
