import { describe, expect, it } from "vitest";
import { noiseBand, sideOfBand, verdictOf, widestBand } from "../../bench/support/noise-band.js";

describe("noiseBand", () => {
  it("is symmetric around a tie: a ratio r and 1/r are as far from it", () => {
    const band = noiseBand({ median: 1.01, min: 0.98, max: 1.05 });
    expect(band?.high).toBeCloseTo(1.05, 6);
    expect(band?.low).toBeCloseTo(1 / 1.05, 6);
    expect(noiseBand({ median: 0.9, min: 0.8, max: 0.95 })?.high).toBeCloseTo(1.25, 6);
  });

  it("is absent without an A/A pair", () => {
    expect(noiseBand(null)).toBeNull();
  });
});

describe("verdictOf", () => {
  const band = { low: 0.95, high: 1 / 0.95 };
  it.each([
    [1.1, "faster"],
    [1.04, "within noise"],
    [0.96, "within noise"],
    [0.9, "slower"],
  ] as const)("reads a median ratio of %f as %s", (median, verdict) => {
    expect(verdictOf({ median, min: median, max: median }, band)).toBe(verdict);
  });

  it("says nothing without a band or a ratio", () => {
    expect(verdictOf(null, band)).toBeNull();
    expect(verdictOf({ median: 2, min: 2, max: 2 }, null)).toBeNull();
  });
});

describe("widestBand", () => {
  const narrow = { low: 1 / 1.1, high: 1.1 };
  const wide = { low: 1 / 1.5, high: 1.5 };
  it.each([
    ["the wider of two", [narrow, wide], wide],
    ["the wider whatever the order", [wide, narrow], wide],
    ["the one known when the other pair did not run", [null, narrow], narrow],
    ["none when no pair ran", [null, null], null],
  ] as const)("is %s", (_name, bands, expected) => {
    expect(widestBand(bands)).toEqual(expected);
  });
});

describe("sideOfBand", () => {
  const band = { low: 0.8, high: 1.25 };
  it.each([
    [1.3, "above"],
    [1.25, "within"],
    [0.8, "within"],
    [0.5, "below"],
  ] as const)("puts a median ratio of %f %s the band", (median, side) => {
    expect(sideOfBand({ median, min: median, max: median }, band)).toBe(side);
  });
});
