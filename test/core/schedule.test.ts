import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DUE_TOLERANCE_MS,
  hopDelaySeconds,
  MAX_SCHEDULE_AHEAD_SECONDS,
  type ScheduleInput,
  scheduleProblems,
  scheduleVerdict,
} from "../../lib/core/schedule.js";

const NOW = Date.parse("2030-01-01T00:00:00Z");
const at = (offsetMs: number): string => new Date(NOW + offsetMs).toISOString();
const input = (fields: Partial<ScheduleInput>): ScheduleInput => ({
  fromProducer: true,
  nowMs: NOW,
  hopSeconds: 900,
  ...fields,
});

describe("scheduleVerdict", () => {
  it.each<[string, Partial<ScheduleInput>, ReturnType<typeof scheduleVerdict>]>([
    ["no notBefore and no due time: due now", {}, { kind: "due" }],
    ["a notBefore that has passed", { notBefore: at(-1) }, { kind: "due" }],
    ["a notBefore of exactly now", { notBefore: at(0) }, { kind: "due" }],
    [
      "a producer's notBefore 1 ms ahead: recorded, one whole-second hop (never early)",
      { notBefore: at(1) },
      { kind: "wait", dueMs: NOW + 1, delaySeconds: 1, firstSight: true },
    ],
    [
      "a producer's notBefore an hour ahead: the first of several 900 s hops",
      { notBefore: at(3_600_000) },
      { kind: "wait", dueMs: NOW + 3_600_000, delaySeconds: 900, firstSight: true },
    ],
    [
      "Ricochet's own hop copy before the notBefore: hops again, not recorded again",
      { notBefore: at(2_500), messageDueMs: NOW + 2_500, fromProducer: false, hopSeconds: 1 },
      { kind: "wait", dueMs: NOW + 2_500, delaySeconds: 1, firstSight: false },
    ],
    [
      "a retry's due time later than the notBefore: the later one wins",
      { notBefore: at(1_000), messageDueMs: NOW + 5_000, fromProducer: false },
      { kind: "wait", dueMs: NOW + 5_000, delaySeconds: 5, firstSight: false },
    ],
    [
      "a retry copy within the tolerance of its due time: due (rounding is not a delay)",
      { messageDueMs: NOW + DUE_TOLERANCE_MS, fromProducer: false },
      { kind: "due" },
    ],
    [
      "a retry copy just past the tolerance: hops one second",
      { messageDueMs: NOW + DUE_TOLERANCE_MS + 1, fromProducer: false },
      { kind: "wait", dueMs: NOW + DUE_TOLERANCE_MS + 1, delaySeconds: 1, firstSight: false },
    ],
  ])("%s", (_, fields, expected) => {
    expect(scheduleVerdict(input(fields))).toEqual(expected);
  });

  it("never lets a call start before notBefore, and every hop is 1 s to hopSeconds long", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -5_000_000, max: 5_000_000 }),
        fc.option(fc.integer({ min: -5_000_000, max: 5_000_000 }), { nil: undefined }),
        fc.integer({ min: 1, max: 900 }),
        fc.boolean(),
        (notBeforeOffset, dueOffset, hopSeconds, fromProducer) => {
          const verdict = scheduleVerdict(
            input({
              notBefore: at(notBeforeOffset),
              messageDueMs: dueOffset === undefined ? undefined : NOW + dueOffset,
              hopSeconds,
              fromProducer,
            }),
          );
          if (verdict.kind === "due") {
            expect(notBeforeOffset).toBeLessThanOrEqual(0);
            return;
          }
          // Waiting for the notBefore: the due time is never before it.
          if (notBeforeOffset > 0)
            expect(verdict.dueMs).toBeGreaterThanOrEqual(NOW + notBeforeOffset);
          expect(verdict.delaySeconds).toBeGreaterThanOrEqual(1);
          expect(verdict.delaySeconds).toBeLessThanOrEqual(hopSeconds);
          expect(verdict.firstSight).toBe(fromProducer && notBeforeOffset > 0);
        },
      ),
    );
  });
});

describe("hopDelaySeconds", () => {
  it.each([
    ["due in 3 s with 1 s hops", 3_000, 1, 1],
    ["due in 2.1 s: rounded up, never early", 2_100, 900, 3],
    ["due already: still one second (SQS's smallest useful delay)", -500, 900, 1],
    ["due in 20 minutes: cut to the 900 s SQS allows", 1_200_000, 900, 900],
  ])("%s", (_, aheadMs, hopSeconds, expected) => {
    expect(hopDelaySeconds(NOW + aheadMs, NOW, hopSeconds)).toBe(expected);
  });
});

describe("scheduleProblems", () => {
  const DAY_MS = 86_400_000;
  it.each<[string, string | undefined, number | undefined, string[]]>([
    ["no notBefore", undefined, 60, []],
    [
      "a notBefore 14 days ahead, the horizon itself",
      at(MAX_SCHEDULE_AHEAD_SECONDS * 1000),
      undefined,
      [],
    ],
    ["a notBefore in the past", at(-DAY_MS), 60, []],
    ["a notBefore within the policy's deadline", at(59_000), 60, []],
    [
      "a notBefore beyond the 14-day horizon",
      at(MAX_SCHEDULE_AHEAD_SECONDS * 1000 + 1_000),
      undefined,
      ["at most 1209600 s (14 days) ahead"],
    ],
    [
      "a notBefore after the policy's deadline counted from submission",
      at(61_000),
      60,
      ["must not be after the policy's deadline (deadlineSeconds 60 from submission)"],
    ],
    [
      "both at once",
      at(15 * DAY_MS),
      3_600,
      ["at most 1209600 s", "must not be after the policy's deadline"],
    ],
  ])("%s", (_, notBefore, deadlineSeconds, fragments) => {
    const problems = scheduleProblems(notBefore, deadlineSeconds, NOW);
    expect(problems).toHaveLength(fragments.length);
    fragments.forEach((fragment, i) => {
      expect(problems[i]).toEqual({
        path: "notBefore",
        message: expect.stringContaining(fragment),
      });
    });
  });
});
