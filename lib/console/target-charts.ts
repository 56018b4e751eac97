import { html } from "hono/html";
import { countOf } from "../core/count-text.js";
import { ACTIVITY_KINDS, type TargetActivity } from "../core/target-activity.js";
import {
  columnScale,
  latencyPoints,
  latencyScale,
  svgNumber as n,
  PERCENTILES,
  type PlotSize,
  stackedBars,
} from "./chart-geometry.js";
import type { Html } from "./page-layout.js";

/*
 * A target's two charts, drawn on the server as inline SVG: no script, no library, nothing
 * fetched, and every label goes through Hono's `html`, which escapes it (a target key is the
 * producer's text). Each bar and point carries a <title>: the browser's tooltip, and what a
 * screen reader says.
 */

const PLOT: PlotSize = { width: 600, height: 100 };
/** Room left of the plot for the scale, above it for the caption, below it for the time axis. */
const LEFT = 52;
const TOP = 14;
const BOTTOM = 18;

const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

/** A latency for a scale: `850 ms`, `4.9 s`. */
export const latencyText = (ms: number): string =>
  ms < 1000 ? `${ms} ms` : `${(Math.round(ms / 100) / 10).toFixed(1)} s`;

interface Frame {
  /** What the chart shows, for its title and aria-label. */
  readonly label: string;
  /** What it shows, in a few words above the plot. */
  readonly caption: string;
  /** The top of the scale. */
  readonly scale: string;
}

const frame = (chart: Frame, body: Html, axis: TargetActivity): Html => {
  const first = axis.minutes[0]?.startMs ?? 0;
  const last = axis.minutes[axis.minutes.length - 1]?.startMs ?? first;
  const width = LEFT + PLOT.width + 4;
  const height = TOP + PLOT.height + BOTTOM;
  return html`<svg class="chart" role="img" aria-label="${chart.label}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">
<title>${chart.label}</title>
<text class="caption" x="${LEFT}" y="10">${chart.caption}</text>
<g transform="translate(${LEFT},${TOP})">
<line class="axis" x1="0" y1="${PLOT.height}" x2="${PLOT.width}" y2="${PLOT.height}"/>
<text class="scale" x="-4" y="9" text-anchor="end">${chart.scale}</text>
<text class="scale" x="-4" y="${PLOT.height}" text-anchor="end">0</text>
<text class="scale" x="0" y="${PLOT.height + 13}">${clock(first)}</text>
<text class="scale" x="${PLOT.width}" y="${PLOT.height + 13}" text-anchor="end">${clock(last)} UTC</text>
${body}
</g></svg>`;
};

/** Outcomes per minute, stacked: delivered, retried, failed, deferred. */
export const outcomeChart = (activity: TargetActivity): Html => {
  const bars = stackedBars(activity.minutes, PLOT).map(
    (bar) =>
      html`<rect class="bar-${bar.kind}" data-kind="${bar.kind}" data-count="${bar.count}" x="${n(bar.x)}" y="${n(bar.y)}" width="${n(bar.width)}" height="${n(bar.height)}"><title>${clock(bar.minuteStartMs)} UTC: ${bar.count} ${bar.kind}</title></rect>`,
  );
  const chart = {
    label: `Outcomes per minute at ${activity.target}`,
    caption: "events per minute: delivered, retried, failed, deferred",
    scale: String(columnScale(activity.minutes)),
  };
  return frame(chart, html`${bars}`, activity);
};

/** p50, p90 and p99 of the calls' latency per minute, as lines through the minutes with calls. */
export const latencyChart = (activity: TargetActivity): Html => {
  const points = latencyPoints(activity.minutes, PLOT);
  const lines = PERCENTILES.map((p) => {
    const line = points[p].map((pt) => `${n(pt.x)},${n(pt.y)}`).join(" ");
    return html`<g class="latency-${p}" data-percentile="${p}">
<polyline points="${line}"/>
${points[p].map((pt) => html`<circle cx="${n(pt.x)}" cy="${n(pt.y)}" r="2.5"><title>${clock(pt.minuteStartMs)} UTC: ${p} ${pt.ms} ms</title></circle>`)}
</g>`;
  });
  const chart = {
    label: `Call latency p50, p90, p99 per minute at ${activity.target}`,
    caption: "call latency per minute: p50, p90, p99",
    scale: latencyText(latencyScale(activity.minutes)),
  };
  return frame(chart, html`${lines}`, activity);
};

const legend = (activity: TargetActivity): Html =>
  html`<p class="legend">${ACTIVITY_KINDS.map((kind) => html`<span class="key bar-${kind}" data-total="${kind}">${activity.totals[kind]} ${kind}</span> `)}${
    activity.latency === undefined
      ? "· no call timed"
      : html`· latency over ${countOf(activity.latency.calls, "call")}: <span class="key latency-p50">p50 ${activity.latency.p50} ms</span> <span class="key latency-p90">p90 ${activity.latency.p90} ms</span> <span class="key latency-p99">p99 ${activity.latency.p99} ms</span>`
  }</p>`;

/** One target's section: its totals, and its two charts. */
export const targetActivitySection = (activity: TargetActivity): Html =>
  html`<section class="activity" data-activity-target="${activity.target}">
<h3>${activity.target}</h3>
${legend(activity)}
${outcomeChart(activity)}
${latencyChart(activity)}
</section>`;
