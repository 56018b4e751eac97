import { describe, expect, it } from "vitest";
import {
  learnedAttributeOf,
  learnedEntriesOf,
  learnedValueOf,
} from "../../lib/adapters/dynamo-learned-entries.js";
import { LimitChange } from "../../lib/core/adaptive-limit.js";
import type { LearnedLimitEntry } from "../../lib/core/learned-limits.js";
import { FIXED_NOW_MS } from "../support/factories.js";

/*
 * A learned entry's refusal counts on the target's item (issue #35): written short, read field by
 * field, and dropped (the entry kept) when they are not four counts this code could have written.
 * Another instance's entry is input from outside this process: a damaged one must not move the
 * share of 429s an instance takes for noise.
 */

const ENTRY: LearnedLimitEntry = {
  instanceId: "i-1",
  callsPerSecond: 12,
  ceilingPerSecond: 100,
  maxConcurrentCalls: 3,
  reason: LimitChange.OVERLOAD,
  changedAtMs: FIXED_NOW_MS - 1_000,
  writtenAtMs: FIXED_NOW_MS,
};

const itemWith = (value: Record<string, unknown>) => ({ [learnedAttributeOf("i-1")]: value });

describe("an entry's refusal counts on the item", () => {
  it("round-trips through the value written", () => {
    const refusals = { lockoutCalls: 40, lockoutRefused: 4, afterCalls: 80.5, afterRefused: 2 };
    const written = learnedValueOf({ ...ENTRY, refusals });
    expect(learnedEntriesOf(itemWith(written))).toEqual([{ ...ENTRY, refusals }]);
  });

  it("writes an entry without counts as before", () => {
    expect(learnedEntriesOf(itemWith(learnedValueOf(ENTRY)))).toEqual([ENTRY]);
  });

  it.each<[string, unknown]>([
    ["not a list", { lockoutCalls: 1 }],
    ["three counts", [1, 0, 1]],
    ["a negative count", [10, -1, 10, 0]],
    ["more refused than called", [10, 11, 10, 0]],
    ["a count that is not a number", [10, "1", 10, 0]],
    ["an infinite count", [Number.POSITIVE_INFINITY, 0, 10, 0]],
  ])("drops counts that are %s, keeping the entry", (_name, counts) => {
    const written = { ...learnedValueOf(ENTRY), rt: counts };
    expect(learnedEntriesOf(itemWith(written))).toEqual([ENTRY]);
  });
});
