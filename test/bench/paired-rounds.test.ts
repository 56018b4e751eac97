import { describe, expect, it } from "vitest";
import {
  checkRounds,
  mean3,
  median3,
  medianRatios,
  ratioBands,
  roundRatios,
  runRotatedRounds,
} from "../../bench/support/paired-rounds.js";

describe("paired rounds", () => {
  it.each([
    { values: [], median: null },
    { values: [3, 1, 2], median: 2 },
    { values: [1, 2, 3, 4], median: 2.5 },
    { values: [1 / 3], median: 0.333 },
  ])("takes the median of $values as $median", ({ values, median }) => {
    expect(median3(values)).toBe(median);
  });

  it("averages only the known values", () => {
    expect(mean3([1, null, 2])).toBe(1.5);
    expect(mean3([null])).toBeNull();
  });

  it("pairs rounds by index and drops a round whose divisor is zero or unknown", () => {
    const pick = (f: { v: number | null }) => f.v;
    expect(
      roundRatios([{ v: 2 }, { v: 3 }, { v: 4 }], [{ v: 1 }, { v: 0 }, { v: null }], pick),
    ).toEqual([2]);
  });

  it("gives each named figure its median ratio and its A/A band, as near on either side of a tie", () => {
    const figures = { x: (f: { x: number }) => f.x };
    const a = [{ x: 2 }, { x: 3 }, { x: 4 }];
    const b = [{ x: 2 }, { x: 2 }, { x: 2 }];
    expect(medianRatios(a, b, figures)).toEqual({ x: 1.5 });
    expect(ratioBands(a, b, figures)).toEqual({ x: { low: 0.5, high: 2 } });
    expect(ratioBands([{ x: 0.8 }], [{ x: 1 }], figures)).toEqual({ x: { low: 0.8, high: 1.25 } });
  });

  it("refuses a round count that is not a multiple of the contenders'", () => {
    expect(() => checkRounds("saturating", 4, 5)).toThrow(/multiple of 5.*got 4/);
    expect(() => checkRounds("saturating", 10, 5)).not.toThrow();
  });

  /** Two rounds of contenders a and b, each run returning its label; the runs made, in order. */
  const twoRounds = async (warmUpLabel?: string) => {
    const seen: string[] = [];
    const result = await runRotatedRounds({
      contenders: [{ name: "a" }, { name: "b" }],
      rounds: 2,
      labelOf: (round) => `r${round}`,
      warmUpLabel,
      runOnce: async (contender, label) => {
        seen.push(`${label}:${contender.name}`);
        return label;
      },
      describe: () => "",
      progress: () => {},
    });
    return { seen, ...result };
  };

  it("runs every contender once a round, each round rotated one place", async () => {
    const { seen, order, runs, warmUp } = await twoRounds();
    expect(seen).toEqual(["r0:a", "r0:b", "r1:b", "r1:a"]);
    expect(order.map((o) => o.contenders)).toEqual([
      ["a", "b"],
      ["b", "a"],
    ]);
    expect(runs.get("a")).toEqual(["r0", "r1"]);
    expect(warmUp).toBeUndefined();
  });

  it("makes a warm-up run before the rounds and counts it in no contender's figures", async () => {
    const { seen, runs, warmUp } = await twoRounds("warm");
    expect(seen).toEqual(["warm:a", "r0:a", "r0:b", "r1:b", "r1:a"]);
    expect(warmUp).toEqual({ run: "warm", contender: "a" });
    expect(runs.get("a")).toEqual(["r0", "r1"]);
  });
});
