import { describe, expect, it } from "vitest";
import { CONTENDERS, contendersInRound } from "../../bench/harness.js";

const namesIn = (round: number): string[] => contendersInRound(round).map((c) => c.name);

describe("contendersInRound", () => {
  it.each([
    [1, ["ricochet", "powertools", "bareSqs"]],
    [2, ["powertools", "bareSqs", "ricochet"]],
    [3, ["bareSqs", "ricochet", "powertools"]],
    [4, ["ricochet", "powertools", "bareSqs"]],
    [0, ["bareSqs", "ricochet", "powertools"]],
  ])("round %i runs %j", (round, expected) => {
    expect(namesIn(round)).toEqual(expected);
  });

  it("puts every contender first exactly once in as many rounds as there are contenders", () => {
    const firsts = CONTENDERS.map((_, index) => namesIn(index + 1)[0]);
    expect(new Set(firsts).size).toBe(CONTENDERS.length);
  });
});
