import {
  ACTIVITY_KINDS,
  type ActivityKind,
  type ActivityMinute,
  type LatencyPercentiles,
} from "../core/target-activity.js";

/*
 * Where the console's charts put things, apart from how they are drawn: plain numbers a test
 * can check. A chart's plot is `width` × `height` user units, y growing downwards as in SVG.
 */

/** A plot's size in SVG user units. */
export interface PlotSize {
  readonly width: number;
  readonly height: number;
}

/** One kind's part of one minute's column. */
export interface StackedBar {
  readonly kind: ActivityKind;
  readonly count: number;
  readonly minuteStartMs: number;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** The tallest column's total, at least 1 so that an empty chart still has a scale. */
export const columnScale = (minutes: readonly ActivityMinute[]): number =>
  Math.max(1, ...minutes.map((m) => ACTIVITY_KINDS.reduce((sum, k) => sum + m.counts[k], 0)));

const BAR_GAP = 1;

/**
 * A column per minute, its kinds stacked bottom-up in {@link ACTIVITY_KINDS} order, heights in
 * proportion to the tallest column; kinds with no count get no bar.
 */
export const stackedBars = (minutes: readonly ActivityMinute[], size: PlotSize): StackedBar[] => {
  const scale = columnScale(minutes);
  const slot = size.width / Math.max(1, minutes.length);
  return minutes.flatMap((minute, i) => {
    let top = size.height;
    return ACTIVITY_KINDS.filter((kind) => minute.counts[kind] > 0).map((kind): StackedBar => {
      const count = minute.counts[kind];
      const height = (count / scale) * size.height;
      top -= height;
      return {
        kind,
        count,
        minuteStartMs: minute.startMs,
        x: i * slot,
        y: top,
        width: Math.max(1, slot - BAR_GAP),
        height,
      };
    });
  });
};

export const PERCENTILES = ["p50", "p90", "p99"] as const;
export type Percentile = (typeof PERCENTILES)[number];

/** One minute's value of one percentile. */
export interface LatencyPoint {
  readonly percentile: Percentile;
  readonly ms: number;
  readonly minuteStartMs: number;
  readonly x: number;
  readonly y: number;
}

/** The highest latency drawn, at least 1 ms. */
export const latencyScale = (minutes: readonly ActivityMinute[]): number =>
  Math.max(1, ...minutes.map((m) => m.latency?.p99 ?? 0));

/**
 * Per percentile, a point at the middle of each minute that had calls, its height in
 * proportion to the window's highest p99; minutes without calls have no point.
 */
export const latencyPoints = (
  minutes: readonly ActivityMinute[],
  size: PlotSize,
): Record<Percentile, LatencyPoint[]> => {
  const scale = latencyScale(minutes);
  const slot = size.width / Math.max(1, minutes.length);
  const pointsOf = (percentile: Percentile): LatencyPoint[] =>
    minutes.flatMap((minute, i) => {
      const latency: LatencyPercentiles | undefined = minute.latency;
      if (latency === undefined) return [];
      const ms = latency[percentile];
      return [
        {
          percentile,
          ms,
          minuteStartMs: minute.startMs,
          x: i * slot + slot / 2,
          y: size.height - (ms / scale) * size.height,
        },
      ];
    });
  return { p50: pointsOf("p50"), p90: pointsOf("p90"), p99: pointsOf("p99") };
};

/** A span of time on a time axis. */
export interface TimeSpan {
  readonly startMs: number;
  readonly endMs: number;
}

/** Where a span lands on an axis of `width` from `axis.startMs` to `axis.endMs`: at least 2 wide. */
export const spanGeometry = (
  span: TimeSpan,
  axis: TimeSpan,
  width: number,
): { readonly x: number; readonly width: number } => {
  const length = Math.max(1, axis.endMs - axis.startMs);
  const x = ((span.startMs - axis.startMs) / length) * width;
  const end = ((span.endMs - axis.startMs) / length) * width;
  return { x, width: Math.max(2, end - x) };
};

/** Rounds for SVG attributes: short, and the same on every run. */
export const svgNumber = (value: number): string => String(Math.round(value * 10) / 10);
