import { describe, expect, it } from "vitest";
import { LimitChange } from "../../lib/core/adaptive-limit.js";
import { closedBreaker } from "../../lib/core/circuit-breaker.js";
import {
  entriesToPrune,
  LEARNED_ENTRY_STALE_MS,
  type LearnedLimitEntry,
  learnedLimitText,
  learnedSummary,
  MAX_LEARNED_ENTRIES,
  NOT_ENGAGED_TEXT,
  othersOf,
  rateText,
} from "../../lib/core/learned-limits.js";
import { targetReport } from "../../lib/core/target-report.js";
import { FIXED_NOW_MS } from "../support/factories.js";

/*
 * The instances' learned limits as operators are told them (issue #35): fresh entries summed,
 * stale ones ignored, the most recent change named.
 */

const NOW = FIXED_NOW_MS;

const entry = (
  instanceId: string,
  overrides: Partial<LearnedLimitEntry> = {},
): LearnedLimitEntry => ({
  instanceId,
  callsPerSecond: 10,
  ceilingPerSecond: 100,
  maxConcurrentCalls: 2,
  reason: LimitChange.OVERLOAD,
  changedAtMs: NOW - 2_000,
  writtenAtMs: NOW - 1_000,
  ...overrides,
});

describe("learnedSummary", () => {
  it.each([
    { name: "no entry", entries: [], expected: undefined },
    {
      name: "a stale entry only",
      entries: [entry("a", { writtenAtMs: NOW - LEARNED_ENTRY_STALE_MS - 1 })],
      expected: undefined,
    },
    {
      name: "one fresh entry",
      entries: [entry("a", { callsPerSecond: 18 })],
      expected: { callsPerSecond: 18, instances: 1, maxConcurrentCalls: 2 },
    },
    {
      name: "an entry exactly at the staleness bound, still counted",
      entries: [entry("a", { writtenAtMs: NOW - LEARNED_ENTRY_STALE_MS })],
      expected: { callsPerSecond: 10, instances: 1 },
    },
    {
      name: "three fresh entries, summed",
      entries: [entry("a"), entry("b", { callsPerSecond: 5 }), entry("c", { callsPerSecond: 3 })],
      expected: { callsPerSecond: 18, instances: 3, maxConcurrentCalls: 6, ceilingPerSecond: 100 },
    },
    {
      name: "a fresh and a stale entry: the stale one is left out",
      entries: [entry("a"), entry("b", { writtenAtMs: NOW - 90_000, callsPerSecond: 50 })],
      expected: { callsPerSecond: 10, instances: 1 },
    },
    {
      name: "the most recent change names the reason",
      entries: [
        entry("a", { reason: LimitChange.OVERLOAD, changedAtMs: NOW - 5_000 }),
        entry("b", { reason: LimitChange.RETRY_AFTER, changedAtMs: NOW - 3_000 }),
      ],
      expected: { reason: LimitChange.RETRY_AFTER, changedAtMs: NOW - 3_000 },
    },
    {
      name: "the breaker's zero counts as an instance allowing nothing",
      entries: [entry("a", { callsPerSecond: 0, reason: LimitChange.BREAKER_OPEN })],
      expected: { callsPerSecond: 0, instances: 1, reason: LimitChange.BREAKER_OPEN },
    },
  ])("$name", ({ entries, expected }) => {
    const summary = learnedSummary(entries, NOW);
    if (expected === undefined) expect(summary).toBeUndefined();
    else expect(summary).toMatchObject(expected);
  });

  it("counts at most the newest MAX_LEARNED_ENTRIES", () => {
    const many = Array.from({ length: MAX_LEARNED_ENTRIES + 5 }, (_, i) =>
      entry(`w-${i}`, { callsPerSecond: 1, writtenAtMs: NOW - i }),
    );
    expect(learnedSummary(many, NOW)?.instances).toBe(MAX_LEARNED_ENTRIES);
  });
});

const counts = (
  lockoutCalls: number,
  lockoutRefused: number,
  afterCalls: number,
  afterRefused: number,
) => ({
  lockoutCalls,
  lockoutRefused,
  afterCalls,
  afterRefused,
});

describe("othersOf", () => {
  it.each([
    { name: "no entry", entries: [], expected: undefined },
    {
      name: "only stale ones",
      entries: [entry("a", { writtenAtMs: NOW - 61_000 })],
      expected: undefined,
    },
    {
      name: "the fresh ones' rates summed, a breaker's zero counted as an instance",
      entries: [
        entry("a"),
        entry("b", { callsPerSecond: 0 }),
        entry("c", { writtenAtMs: NOW - 61_000 }),
      ],
      expected: { perSecond: 10, instances: 2, seenAtMs: NOW },
    },
    {
      name: "the fresh ones' refusal counts summed, an entry without counts adding none",
      entries: [
        entry("a", { refusals: counts(100, 5, 200, 9) }),
        entry("b", { refusals: counts(50, 2, 30, 1) }),
        entry("c"),
        entry("d", { refusals: counts(900, 90, 900, 90), writtenAtMs: NOW - 61_000 }),
      ],
      expected: { perSecond: 30, instances: 3, seenAtMs: NOW, refusals: counts(150, 7, 230, 10) },
    },
  ])("$name", ({ entries, expected }) => {
    expect(othersOf(entries, NOW)).toEqual(expected);
  });
});

describe("entriesToPrune", () => {
  it.each([
    { name: "nothing to prune", entries: [entry("a"), entry("b")], pruned: [] },
    {
      name: "the stale ones",
      entries: [entry("a"), entry("b", { writtenAtMs: NOW - 61_000 })],
      pruned: ["b"],
    },
    {
      name: "the oldest beyond the cap",
      entries: Array.from({ length: MAX_LEARNED_ENTRIES + 2 }, (_, i) =>
        entry(`w-${i}`, { writtenAtMs: NOW - i }),
      ),
      pruned: [`w-${MAX_LEARNED_ENTRIES}`, `w-${MAX_LEARNED_ENTRIES + 1}`],
    },
  ])("$name", ({ entries, pruned }) => {
    expect(entriesToPrune(entries, NOW).map((e) => e.instanceId)).toEqual(pruned);
  });
});

describe("the learned limit's text", () => {
  it.each([
    { learned: undefined, text: NOT_ENGAGED_TEXT },
    { learned: { callsPerSecond: 18.4, instances: 3 }, text: "18/s over 3 instances" },
    { learned: { callsPerSecond: 2.46, instances: 1 }, text: "2.5/s over 1 instance" },
    { learned: { callsPerSecond: 0, instances: 2 }, text: "0/s over 2 instances" },
  ])("$text", ({ learned, text }) => {
    expect(learnedLimitText(learned)).toBe(text);
  });

  it("gives a decimal only below 10/s", () => {
    expect([rateText(9.94), rateText(10.4), rateText(1_000)]).toEqual(["9.9/s", "10/s", "1000/s"]);
  });
});

describe("targetReport's learned limit", () => {
  const listed = (learned?: LearnedLimitEntry[]) => ({
    key: "http:https://partner.example:443",
    breaker: closedBreaker(NOW),
    version: 1,
    updatedAt: new Date(NOW).toISOString(),
    learned,
  });

  it.each([
    { name: "no entries (adaptive limits off)", learned: undefined, expected: undefined },
    {
      name: "stale entries only",
      learned: [entry("a", { writtenAtMs: NOW - 120_000 })],
      expected: undefined,
    },
    {
      name: "fresh entries, summed, with the change's time in ISO 8601",
      learned: [entry("a"), entry("b", { callsPerSecond: 8, changedAtMs: NOW - 1_500 })],
      expected: {
        callsPerSecond: 18,
        instances: 2,
        ceilingPerSecond: 100,
        maxConcurrentCalls: 4,
        reason: LimitChange.OVERLOAD,
        changedAt: new Date(NOW - 1_500).toISOString(),
      },
    },
  ])("$name", ({ learned, expected }) => {
    expect(targetReport(listed(learned), NOW, 60_000).learned).toEqual(expected);
  });
});
