import { describe, expect, it } from "vitest";
import { nearestName, unknownNameProblems, withNearestNames } from "../../lib/core/nearest-name.js";
import { NOT_RECOGNIZED } from "../../lib/core/zod-problems.js";

const KNOWN = ["maxConcurrency", "batchSize", "hopSeconds", "tracing"];

describe("nearestName", () => {
  it.each([
    ["a dropped letter", "maxConcurency", "maxConcurrency"],
    ["a letter's case", "batchsize", "batchSize"],
    ["two letters swapped", "hopSecodns", "hopSeconds"],
    ["a short name two edits off", "tracng", "tracing"],
    ["a name like none", "colour", undefined],
    ["a short name far from all", "x", undefined],
  ])("for %s (%s) gives %s", (_case, name, nearest) => {
    expect(nearestName(name, KNOWN)).toBe(nearest);
  });

  it("gives nothing when nothing is known", () => {
    expect(nearestName("batchSize", [])).toBeUndefined();
  });
});

describe("unknownNameProblems", () => {
  it("refuses only the unknown names, each at its path, with the nearest when close", () => {
    expect(unknownNameProblems(["batchSize", "maxConcurency", "colour"], KNOWN, "props.")).toEqual([
      { path: "props.maxConcurency", message: `${NOT_RECOGNIZED}; did you mean maxConcurrency?` },
      { path: "props.colour", message: NOT_RECOGNIZED },
    ]);
  });
});

describe("withNearestNames", () => {
  it("adds the nearest name to unrecognized fields at the prefix, and leaves the rest alone", () => {
    const problems = [
      { path: "batchsize", message: NOT_RECOGNIZED },
      { path: "policy.batchsize", message: NOT_RECOGNIZED },
      { path: "hopSeconds", message: "must be at least 1" },
    ];
    expect(withNearestNames(problems, KNOWN)).toEqual([
      { path: "batchsize", message: `${NOT_RECOGNIZED}; did you mean batchSize?` },
      problems[1],
      problems[2],
    ]);
  });
});
