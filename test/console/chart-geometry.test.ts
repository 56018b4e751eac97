import { describe, expect, it } from "vitest";
import { latencyPoints, spanGeometry, stackedBars } from "../../lib/console/chart-geometry.js";
import type { ActivityMinute, LatencyPercentiles } from "../../lib/core/target-activity.js";

const SIZE = { width: 100, height: 50 };

const minute = (
  startMs: number,
  counts: Partial<ActivityMinute["counts"]>,
  latency?: LatencyPercentiles,
): ActivityMinute => ({
  startMs,
  counts: { delivered: 0, retried: 0, failed: 0, deferred: 0, ...counts },
  latency,
});

describe("stacked outcome bars", () => {
  it("stacks a minute's kinds bottom-up, the tallest column filling the plot", () => {
    const bars = stackedBars(
      [minute(0, { delivered: 2, retried: 1, failed: 1 }), minute(60_000, { delivered: 2 })],
      SIZE,
    );
    expect(bars).toEqual([
      { kind: "delivered", count: 2, minuteStartMs: 0, x: 0, y: 25, width: 49, height: 25 },
      { kind: "retried", count: 1, minuteStartMs: 0, x: 0, y: 12.5, width: 49, height: 12.5 },
      { kind: "failed", count: 1, minuteStartMs: 0, x: 0, y: 0, width: 49, height: 12.5 },
      { kind: "delivered", count: 2, minuteStartMs: 60_000, x: 50, y: 25, width: 49, height: 25 },
    ]);
  });

  it.each<[string, ActivityMinute[], number]>([
    ["no minute", [], 0],
    ["an empty minute", [minute(0, {})], 0],
    ["a deferral alone", [minute(0, { deferred: 3 })], 1],
  ])("draws %s as %i bars", (_, minutes, count) => {
    expect(stackedBars(minutes, SIZE)).toHaveLength(count);
  });

  it("keeps a bar at least one unit wide when the minutes outnumber the plot's width", () => {
    const many = Array.from({ length: 300 }, (_, i) => minute(i * 60_000, { delivered: 1 }));
    expect(Math.min(...stackedBars(many, SIZE).map((b) => b.width))).toBe(1);
  });
});

describe("latency points", () => {
  it("puts each percentile at the middle of its minute, the highest p99 at the top", () => {
    const points = latencyPoints(
      [
        minute(0, {}, { calls: 3, p50: 100, p90: 200, p99: 400 }),
        minute(60_000, {}),
        minute(120_000, {}, { calls: 1, p50: 200, p90: 200, p99: 200 }),
      ],
      { width: 90, height: 40 },
    );
    expect(points.p99.map(({ x, y }) => [x, y])).toEqual([
      [15, 0],
      [75, 20],
    ]);
    expect(points.p50.map(({ x, y, ms }) => [x, y, ms])).toEqual([
      [15, 30, 100],
      [75, 20, 200],
    ]);
  });
});

describe("a span on a time axis", () => {
  const axis = { startMs: 1_000, endMs: 11_000 };
  it.each<[string, { startMs: number; endMs: number }, { x: number; width: number }]>([
    ["the whole axis", axis, { x: 0, width: 200 }],
    ["its second half", { startMs: 6_000, endMs: 11_000 }, { x: 100, width: 100 }],
    ["an instant: 2 wide, to be seen", { startMs: 6_000, endMs: 6_000 }, { x: 100, width: 2 }],
  ])("%s", (_, span, expected) => {
    expect(spanGeometry(span, axis, 200)).toEqual(expected);
  });
});
