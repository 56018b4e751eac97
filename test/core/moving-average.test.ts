import { describe, expect, it } from "vitest";
import { movingAverage } from "../../lib/core/moving-average.js";

describe("movingAverage", () => {
  it.each([
    {
      case: "no average yet: the sample itself",
      average: undefined,
      value: 80,
      weight: 0.1,
      expected: 80,
    },
    {
      case: "a tenth of the way to the sample",
      average: 100,
      value: 200,
      weight: 0.1,
      expected: 110,
    },
    { case: "downwards as well", average: 100, value: 0, weight: 0.25, expected: 75 },
    { case: "weight 0 keeps the average", average: 100, value: 5, weight: 0, expected: 100 },
    { case: "weight 1 takes the sample", average: 100, value: 5, weight: 1, expected: 5 },
  ])("$case", ({ average, value, weight, expected }) => {
    expect(movingAverage(average, value, weight)).toBeCloseTo(expected, 9);
  });
});
