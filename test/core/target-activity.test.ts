import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AttemptEntry } from "../../lib/core/record.js";
import {
  activityKindOf,
  callLatencyMs,
  latencyPercentiles,
  MINUTE_MS,
  targetActivity,
  windowStartMs,
} from "../../lib/core/target-activity.js";
import { anAttemptEntry, anEventRecord, FIXED_NOW_MS } from "../support/factories.js";

const iso = (ms: number): string => new Date(ms).toISOString();
/** Half a minute into the window's last minute. */
const NOW_MS = FIXED_NOW_MS + 30_000;
const WINDOW = { nowMs: NOW_MS, minutes: 5 };
const START_MS = windowStartMs(WINDOW);

/** An attempt that finished at `finishedMs`, its call having taken `callMs`. */
const finished = (
  finishedMs: number,
  overrides: Partial<AttemptEntry> = {},
  callMs = 100,
): AttemptEntry =>
  anAttemptEntry({
    claimedAt: iso(finishedMs - callMs - 10),
    sentAt: iso(finishedMs - callMs),
    finishedAt: iso(finishedMs),
    ...overrides,
  });

describe("what an attempt counts as", () => {
  it.each<[string, Partial<AttemptEntry>, string]>([
    ["a success", { outcome: "success", statusCode: 200 }, "delivered"],
    [
      "a retryable failure with a next attempt",
      { outcome: "retryable", delaySeconds: 4 },
      "retried",
    ],
    [
      "an uncertain failure with a next attempt",
      { outcome: "uncertain", delaySeconds: 4 },
      "retried",
    ],
    ["a retryable failure with no next attempt (budget spent)", { outcome: "retryable" }, "failed"],
    ["a permanent failure", { outcome: "permanent", statusCode: 400 }, "failed"],
    ["a run ended without a call", { outcome: "permanent", noCall: true }, "failed"],
  ])("%s: %s", (_, overrides, kind) => {
    expect(activityKindOf(anAttemptEntry(overrides))).toBe(kind);
  });
});

describe("a call's latency", () => {
  it.each<[string, Partial<AttemptEntry>, number | undefined]>([
    ["from send to finish", { sentAt: iso(1_000), finishedAt: iso(1_250) }, 250],
    ["unknown without a send time", { sentAt: undefined }, undefined],
    ["none for a run that made no call", { noCall: true }, undefined],
    ["none when the clock went back", { sentAt: iso(2_000), finishedAt: iso(1_000) }, undefined],
  ])("%s", (_, overrides, ms) => {
    expect(callLatencyMs(anAttemptEntry(overrides))).toBe(ms);
  });
});

describe("latency percentiles (nearest rank)", () => {
  it.each<[readonly number[], { p50: number; p90: number; p99: number } | undefined]>([
    [[], undefined],
    [[7], { p50: 7, p90: 7, p99: 7 }],
    [[40, 10, 30, 20], { p50: 20, p90: 40, p99: 40 }],
    [Array.from({ length: 100 }, (_, i) => i + 1), { p50: 50, p90: 90, p99: 99 }],
    [Array.from({ length: 10 }, (_, i) => (i + 1) * 10), { p50: 50, p90: 90, p99: 100 }],
  ])("of %j", (values, expected) => {
    const found = latencyPercentiles(values);
    expect(
      found === undefined ? undefined : { p50: found.p50, p90: found.p90, p99: found.p99 },
    ).toEqual(expected);
  });

  it("are values of the sample, in order, between its least and greatest", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(100_000), { minLength: 1, maxLength: 200 }), (values) => {
        const p = latencyPercentiles(values);
        expect(p).toBeDefined();
        if (p === undefined) return;
        expect(p.calls).toBe(values.length);
        for (const v of [p.p50, p.p90, p.p99]) expect(values).toContain(v);
        expect(p.p50).toBeLessThanOrEqual(p.p90);
        expect(p.p90).toBeLessThanOrEqual(p.p99);
        expect(p.p99).toBeLessThanOrEqual(Math.max(...values));
      }),
    );
  });
});

describe("a target's activity per minute", () => {
  it("starts the window on a whole minute, ending with the minute now is in", () => {
    expect(START_MS % MINUTE_MS).toBe(0);
    expect(NOW_MS - START_MS).toBeGreaterThanOrEqual(4 * MINUTE_MS);
    expect(NOW_MS - START_MS).toBeLessThan(5 * MINUTE_MS);
  });

  it.each<[string, number, number | undefined]>([
    ["the window's first instant: its first minute", START_MS, 0],
    ["a minute's last ms: that minute", START_MS + MINUTE_MS - 1, 0],
    ["the next ms: the next minute", START_MS + MINUTE_MS, 1],
    ["now: the last minute", NOW_MS, 4],
    ["before the window: not counted", START_MS - 1, undefined],
    ["after the window (a clock ahead): not counted", START_MS + 5 * MINUTE_MS, undefined],
  ])("buckets an attempt finished at %s", (_, atMs, minute) => {
    const [activity] = targetActivity(
      [anEventRecord({ history: [finished(atMs, { outcome: "success" })] })],
      WINDOW,
    );
    const delivered = activity?.minutes.map((m) => m.counts.delivered) ?? [];
    expect(delivered.indexOf(1)).toBe(minute ?? -1);
    if (minute !== undefined) expect(delivered).toHaveLength(5);
  });

  it("counts a target that went down and recovered: retries, a failure, then deliveries", () => {
    const minute = (i: number, second = 10): number => START_MS + i * MINUTE_MS + second * 1000;
    const records = [
      anEventRecord({
        history: [
          finished(minute(0), { outcome: "retryable", delaySeconds: 60 }, 3_000),
          finished(minute(1), { outcome: "retryable", delaySeconds: 60 }, 3_000),
          finished(minute(2), { outcome: "success", statusCode: 200 }, 80),
        ],
      }),
      anEventRecord({ history: [finished(minute(1, 20), { outcome: "retryable" }, 5_000)] }),
      anEventRecord({ history: [finished(minute(3), { outcome: "success" }, 40)] }),
      anEventRecord({
        deferral: {
          cause: "breaker_open",
          targetKey: "http:https://receiver.example.com:443",
          at: iso(minute(1, 30)),
        },
      }),
    ];
    const [activity, ...others] = targetActivity(records, WINDOW);
    expect(others).toEqual([]);
    expect(activity?.target).toBe("http:https://receiver.example.com:443");
    expect(activity?.minutes.map((m) => m.counts)).toEqual([
      { delivered: 0, retried: 1, failed: 0, deferred: 0 },
      { delivered: 0, retried: 1, failed: 1, deferred: 1 },
      { delivered: 1, retried: 0, failed: 0, deferred: 0 },
      { delivered: 1, retried: 0, failed: 0, deferred: 0 },
      { delivered: 0, retried: 0, failed: 0, deferred: 0 },
    ]);
    expect(activity?.totals).toEqual({ delivered: 2, retried: 2, failed: 1, deferred: 1 });
    expect(activity?.minutes.map((m) => m.latency?.p99)).toEqual([3_000, 5_000, 80, 40, undefined]);
    expect(activity?.latency).toEqual({ calls: 5, p50: 3_000, p90: 5_000, p99: 5_000 });
  });

  it("lists the targets with the most trouble first, each under its own key", () => {
    const at = START_MS + 1_000;
    const records = [
      anEventRecord({ history: [finished(at, { outcome: "success" })] }),
      anEventRecord({
        targetSummary: "lambda arn:aws:lambda:eu-west-1:123456789012:function:billing",
        history: [finished(at, { outcome: "permanent" })],
      }),
      anEventRecord({ targetGroup: "partners", history: [finished(at, { outcome: "success" })] }),
    ];
    expect(targetActivity(records, WINDOW).map((a) => a.target)).toEqual([
      "lambda:arn:aws:lambda:eu-west-1:123456789012:function:billing",
      "group:partners",
      "http:https://receiver.example.com:443",
    ]);
  });
});
