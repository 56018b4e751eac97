import { html } from "hono/html";
import { MAX_SQS_DELAY_SECONDS } from "../contract/aws-limits.js";
import { describeDeferral } from "../core/deferral.js";
import type { EventRecord } from "../core/record.js";
import { formatSeconds } from "../core/time-format.js";
import { svgNumber as n, spanGeometry, type TimeSpan } from "./chart-geometry.js";
import type { TimelineItem } from "./event-timeline.js";
import type { Html } from "./page-layout.js";

/*
 * The event's timeline drawn as bars on one time axis, from the same items the list below it
 * shows (the list's rows are unchanged): attempts and the call within each, the waits between
 * them, split where a wait longer than one SQS delay is reached by hops, the current deferral,
 * the attempt running now, and the operators' actions as marks.
 */

/** What a bar stands for. */
type BarKind = "attempt" | "call" | "wait" | "hop" | "deferral" | "running" | "action";

/** One bar: its span, its lane and its tooltip (free text already redacted by the timeline). */
export interface TimelineBar extends TimeSpan {
  readonly kind: BarKind;
  readonly label: string;
}

const LANE: Readonly<Record<BarKind, number>> = {
  attempt: 0,
  call: 0,
  running: 0,
  wait: 1,
  hop: 1,
  deferral: 1,
  action: 2,
};
const LANE_NAMES = ["attempts", "waits", "operators"] as const;

const ms = (at: string): number => Date.parse(at);

/**
 * A wait of `delaySeconds` after `fromMs`: one bar per SQS delay, the later ones hops (a delay
 * over {@link MAX_SQS_DELAY_SECONDS} is reached by sending the message on again).
 */
export const waitBars = (
  fromMs: number,
  delaySeconds: number,
  hopSeconds: number = MAX_SQS_DELAY_SECONDS,
): TimelineBar[] => {
  const legs = Math.max(1, Math.ceil(delaySeconds / hopSeconds));
  const total = formatSeconds(delaySeconds);
  return Array.from({ length: legs }, (_, leg): TimelineBar => {
    const startMs = fromMs + leg * hopSeconds * 1000;
    const endMs = Math.min(fromMs + delaySeconds * 1000, startMs + hopSeconds * 1000);
    return leg === 0
      ? { kind: "wait", startMs, endMs, label: `wait ${total} before the next attempt` }
      : { kind: "hop", startMs, endMs, label: `hop ${leg} of the ${total} wait` };
  });
};

const itemBars = (item: TimelineItem, nowMs: number): TimelineBar[] => {
  switch (item.kind) {
    case "attempt": {
      const what = item.noCall === true ? "no call" : `attempt ${item.attempt}`;
      const code = item.statusCode === undefined ? "" : ` HTTP ${item.statusCode}`;
      const bars: TimelineBar[] = [
        {
          kind: "attempt",
          startMs: ms(item.claimedAt),
          endMs: ms(item.finishedAt),
          label: `${what}: ${item.outcome}${code}, ${item.message}`,
        },
      ];
      if (item.sentAt !== undefined && item.noCall !== true) {
        const took = ms(item.finishedAt) - ms(item.sentAt);
        bars.push({
          kind: "call",
          startMs: ms(item.sentAt),
          endMs: ms(item.finishedAt),
          label: `call of attempt ${item.attempt}: ${took} ms`,
        });
      }
      return item.delaySeconds === undefined
        ? bars
        : [...bars, ...waitBars(ms(item.finishedAt), item.delaySeconds)];
    }
    case "running":
      return [
        {
          kind: "running",
          startMs: ms(item.at),
          endMs: Math.max(ms(item.at), nowMs),
          label: `attempt ${item.attempt} running on ${item.worker}`,
        },
      ];
    case "audit":
      return [
        {
          kind: "action",
          startMs: ms(item.at),
          endMs: ms(item.at),
          label: `${item.action} by ${item.by}: ${item.reason}`,
        },
      ];
  }
};

/** A scheduled event's wait for its `notBefore`, by hops when it is far off. */
const scheduledBars = (
  record: Pick<EventRecord, "status" | "createdAt" | "nextAttemptAt">,
): TimelineBar[] => {
  if (record.status !== "scheduled" || record.nextAttemptAt === undefined) return [];
  const fromMs = ms(record.createdAt);
  const seconds = Math.max(0, (ms(record.nextAttemptAt) - fromMs) / 1000);
  return waitBars(fromMs, seconds).map((bar) =>
    bar.kind === "wait"
      ? { ...bar, label: `scheduled: first attempt due in ${formatSeconds(seconds)}` }
      : bar,
  );
};

/**
 * Every bar of the event's timeline: the items', a scheduled event's wait for its first attempt,
 * and its current deferral up to when it is due.
 */
export const timelineBars = (
  items: readonly TimelineItem[],
  record: Pick<EventRecord, "status" | "createdAt" | "deferral" | "nextAttemptAt">,
  nowMs: number,
): TimelineBar[] => {
  const bars = [...items.flatMap((item) => itemBars(item, nowMs)), ...scheduledBars(record)];
  const deferral = record.deferral;
  if (deferral === undefined) return bars;
  const startMs = ms(deferral.at);
  const due = record.nextAttemptAt === undefined ? nowMs : ms(record.nextAttemptAt);
  return [
    ...bars,
    { kind: "deferral", startMs, endMs: Math.max(startMs, due), label: describeDeferral(deferral) },
  ];
};

/** From the first bar's start to the last bar's end (at least a second). */
export const timelineAxis = (bars: readonly TimelineBar[]): TimeSpan => {
  const startMs = Math.min(...bars.map((b) => b.startMs));
  const endMs = Math.max(...bars.map((b) => b.endMs));
  return { startMs, endMs: Math.max(endMs, startMs + 1000) };
};

const WIDTH = 760;
const LEFT = 70;
const LANE_HEIGHT = 22;

/** The bars as an SVG, one lane each for attempts, waits and operators' actions. */
export const timelineChart = (bars: readonly TimelineBar[]): Html => {
  if (bars.length === 0) return html``;
  const axis = timelineAxis(bars);
  const height = LANE_NAMES.length * LANE_HEIGHT + 16;
  const rects = bars.map((bar) => {
    const { x, width } = spanGeometry(bar, axis, WIDTH);
    const inset = bar.kind === "call" ? 6 : 2;
    const y = LANE[bar.kind] * LANE_HEIGHT + inset;
    return html`<rect class="span-${bar.kind}" data-kind="${bar.kind}" x="${n(x)}" y="${y}" width="${n(width)}" height="${LANE_HEIGHT - 2 * inset}"><title>${bar.label}</title></rect>`;
  });
  return html`<svg class="chart timeline-chart" role="img" aria-label="Timeline drawn on a time axis" viewBox="0 0 ${LEFT + WIDTH + 4} ${height}" width="${LEFT + WIDTH + 4}" height="${height}">
<title>Timeline drawn on a time axis</title>
${LANE_NAMES.map((name, i) => html`<text class="scale" x="0" y="${i * LANE_HEIGHT + 15}">${name}</text>`)}
<g transform="translate(${LEFT},0)">${rects}
<line class="axis" x1="0" y1="${height - 16}" x2="${WIDTH}" y2="${height - 16}"/>
<text class="scale" x="0" y="${height - 4}">${new Date(axis.startMs).toISOString().slice(11, 19)} UTC</text>
<text class="scale" x="${WIDTH}" y="${height - 4}" text-anchor="end">+${formatSeconds((axis.endMs - axis.startMs) / 1000)}</text>
</g></svg>`;
};
