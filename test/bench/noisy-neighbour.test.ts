import { describe, expect, it } from "vitest";
import {
  balancedRounds,
  checkNoisyRounds,
  DEFAULT_NOISY_SETTINGS,
  NOISY_SUBJECT,
  NOISY_TWINS,
  noisyContenders,
  noisyOrder,
} from "../../bench/noisy-neighbour/noisy-neighbour.js";

const contenders = noisyContenders(DEFAULT_NOISY_SETTINGS.breaker);
const RUNS_PER_ROUND = 3;

describe("the noisy neighbour's rotation", () => {
  it.each([
    [3, 1],
    [4, 4],
    [5, 5],
    [6, 2],
  ])("balances %i contenders in %i round(s) of three runs", (count, rounds) => {
    expect(balancedRounds(count)).toBe(rounds);
  });

  it("gives every contender every place equally often over the default rounds", () => {
    const runs = balancedRounds(contenders.length) * RUNS_PER_ROUND;
    const places = new Map<string, number[]>();
    for (let slot = 0; slot < runs; slot += 1) {
      noisyOrder(slot, contenders).forEach((contender, place) => {
        const counts = places.get(contender.name) ?? contenders.map(() => 0);
        counts[place] = (counts[place] ?? 0) + 1;
        places.set(contender.name, counts);
      });
    }
    const expected = contenders.map(() => runs / contenders.length);
    for (const counts of places.values()) expect(counts).toEqual(expected);
  });

  it.each([1, 3, 5])(
    "refuses %i rounds, which would let some contender go first more often",
    (rounds) => {
      expect(() => checkNoisyRounds(rounds, contenders)).toThrow(
        /rounds must be a multiple of 2, so that each of the 6 contenders/,
      );
    },
  );

  it.each([2, 4])("accepts %i rounds", (rounds) => {
    expect(() => checkNoisyRounds(rounds, contenders)).not.toThrow();
  });

  it("runs the subject, each twin and what it twins, and the Powertools breaker", () => {
    const names = contenders.map((c) => c.name);
    expect(names).toContain(NOISY_SUBJECT);
    expect(names).toContain("powertoolsBreaker");
    for (const pair of NOISY_TWINS) for (const name of pair) expect(names).toContain(name);
  });
});
