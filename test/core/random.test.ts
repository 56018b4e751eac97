import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { randomInt, seededRandom } from "../../lib/core/random.js";
import { constantRandom, TOP_OF_RANGE } from "../support/factories.js";
import { aRandomValue } from "./arbitraries.js";

describe("randomInt", () => {
  it.each([
    [0, 0, 10, 0],
    [TOP_OF_RANGE, 0, 10, 10],
    [0.5, 0, 10, 5],
    [0, 7, 7, 7],
    [0.9, 9, 3, 9],
  ])("maps random %d onto %i..%i as %i", (value, min, max, expected) => {
    expect(randomInt(constantRandom(value), min, max)).toBe(expected);
  });

  it("draws a whole number within the inclusive bounds for any random value", () => {
    fc.assert(
      fc.property(
        aRandomValue(),
        fc.nat({ max: 1e9 }),
        fc.nat({ max: 1e9 }),
        (value, min, span) => {
          const drawn = randomInt(constantRandom(value), min, min + span);
          expect(Number.isInteger(drawn)).toBe(true);
          expect(drawn).toBeGreaterThanOrEqual(min);
          expect(drawn).toBeLessThanOrEqual(min + span);
        },
      ),
    );
  });
});

describe("seededRandom", () => {
  const take = (seed: number, count: number) => {
    const random = seededRandom(seed);
    return Array.from({ length: count }, () => random());
  };

  it("replays the same sequence for the same seed and another for another seed", () => {
    expect(take(42, 20)).toEqual(take(42, 20));
    expect(take(42, 20)).not.toEqual(take(43, 20));
  });

  it("returns values in [0, 1) that spread over the whole interval", () => {
    const values = take(1, 10_000);
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    // Ten equal buckets of a uniform source each get about 1 000 of 10 000 draws.
    const buckets = new Array<number>(10).fill(0);
    for (const v of values) buckets[Math.floor(v * 10)] = (buckets[Math.floor(v * 10)] ?? 0) + 1;
    for (const count of buckets) expect(count).toBeGreaterThan(850);
  });
});
