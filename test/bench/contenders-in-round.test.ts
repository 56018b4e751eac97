import { describe, expect, it } from "vitest";
import { CONTENDERS, contendersInRound, runBenchmark } from "../../bench/harness.js";

const namesIn = (round: number): string[] => contendersInRound(round).map((c) => c.name);

describe("contendersInRound", () => {
  it.each([
    [1, ["ricochet", "powertools", "powertoolsAA", "bareSqs"]],
    [2, ["powertools", "powertoolsAA", "bareSqs", "ricochet"]],
    [3, ["powertoolsAA", "bareSqs", "ricochet", "powertools"]],
    [4, ["bareSqs", "ricochet", "powertools", "powertoolsAA"]],
    [5, ["ricochet", "powertools", "powertoolsAA", "bareSqs"]],
    [0, ["bareSqs", "ricochet", "powertools", "powertoolsAA"]],
  ])("round %i runs %j", (round, expected) => {
    expect(namesIn(round)).toEqual(expected);
  });

  it("puts every contender first exactly once in as many rounds as there are contenders", () => {
    const firsts = CONTENDERS.map((_, index) => namesIn(index + 1)[0]);
    expect(new Set(firsts).size).toBe(CONTENDERS.length);
  });
});

describe("runBenchmark", () => {
  it.each([1, 3, 5, 6])(
    "refuses %i rounds, which would let some contender go first more often",
    async (rounds) => {
      await expect(
        runBenchmark({
          local: {
            endpoints: { sqs: "http://127.0.0.1:9", dynamodb: "http://127.0.0.1:9" },
            region: "us-east-1",
          },
          events: 1,
          rounds,
        }),
      ).rejects.toThrow(/rounds must be a multiple of the 4 contenders/);
    },
  );
});
