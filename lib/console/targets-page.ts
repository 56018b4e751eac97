import { html } from "hono/html";
import type { TargetActivity } from "../core/target-activity.js";
import { BREAKERS_OFF_NOTE, NO_TARGET_FAILED, type TargetReport } from "../core/target-report.js";
import { formatSeconds } from "../core/time-format.js";
import { type Html, pageLayout, shown } from "./page-layout.js";
import { targetActivitySection } from "./target-charts.js";

const ago = (at: string | undefined, nowMs: number): string =>
  at === undefined ? "" : `${formatSeconds((nowMs - Date.parse(at)) / 1000)} ago`;

const failuresOf = (t: TargetReport): string =>
  `${t.failures}/${t.calls}${t.failureRate === undefined ? "" : ` (${Math.round(t.failureRate * 100)}%)`}`;

const targetLink = (t: TargetReport): Html =>
  html`<a href="/events?status=dead_lettered&target=${encodeURIComponent(t.target)}">${t.target}</a>`;

const breakerTable = (targets: readonly TargetReport[], nowMs: number): Html =>
  html`<table><thead><tr><th>target</th><th>state</th><th>failures/calls</th><th>deferred</th><th>last error</th><th>last failed</th><th>opened</th><th>closed</th></tr></thead><tbody>
${targets.map(
  (t) => html`<tr data-target="${t.target}"><td>${targetLink(t)}</td>
<td data-state="${t.state}">${t.state}${t.reopenAt === undefined ? "" : `, probe in ${formatSeconds(Math.max(0, Date.parse(t.reopenAt) - nowMs) / 1000)}`}</td>
<td>${failuresOf(t)}</td>
<td>${t.deferred}</td><td>${shown(t.lastError)}</td><td>${ago(t.lastErrorAt, nowMs)}</td><td>${ago(t.openedAt, nowMs)}</td><td>${ago(t.closedAt, nowMs)}</td></tr>`,
)}</tbody></table>`;

/** With the breakers off, a breaker's columns would only say "closed": the failures alone. */
const failureTable = (targets: readonly TargetReport[], nowMs: number): Html =>
  html`<table><thead><tr><th>target</th><th>failures/calls</th><th>last error</th><th>last failed</th></tr></thead><tbody>
${targets.map(
  (t) => html`<tr data-target="${t.target}"><td>${targetLink(t)}</td><td>${failuresOf(t)}</td>
<td>${shown(t.lastError)}</td><td>${ago(t.lastErrorAt, nowMs)}</td></tr>`,
)}</tbody></table>`;

/** What the charts were drawn from: the bound of the read, said on the page. */
export interface ActivitySample {
  readonly targets: readonly TargetActivity[];
  readonly minutes: number;
  /** The most records the read looked at. */
  readonly maxRecordsRead: number;
  /** True when the table holds more than were read: the charts may miss events. */
  readonly cutShort: boolean;
}

const activitySection = (sample: ActivitySample): Html => {
  const bound = html`<p class="bound" data-cut-short="${String(sample.cutShort)}">Last ${sample.minutes} min, from the attempt history of at most ${sample.maxRecordsRead} event records read${sample.cutShort ? html` — <strong>the table holds more: events outside those read are not counted</strong>` : ""}. Deferrals: each waiting event's latest.</p>`;
  return html`<h2>Outcomes and latency per minute</h2>
${bound}
${sample.targets.length === 0 ? html`<p>No attempt finished in the last ${sample.minutes} min among the records read.</p>` : sample.targets.map(targetActivitySection)}`;
};

/**
 * The targets that have failed, as `ricochet targets` reports them (says when breakers are
 * off), then each target's outcomes and call latency per minute.
 */
export const targetsPage = (
  targets: readonly TargetReport[],
  view: {
    readonly nowMs: number;
    readonly breakersOn: boolean;
    readonly activity: ActivitySample;
  },
): Html => {
  const table = view.breakersOn ? breakerTable : failureTable;
  return pageLayout(
    "Targets",
    html`${view.breakersOn ? "" : html`<p data-breakers="off">${BREAKERS_OFF_NOTE}</p>`}
${targets.length === 0 ? html`<p>${NO_TARGET_FAILED}</p>` : table(targets, view.nowMs)}
${activitySection(view.activity)}`,
  );
};
