import { html } from "hono/html";
import {
  BREAKERS_OFF_NOTE,
  LEARNED_LIMIT_HEADINGS,
  learnedLimitCells,
  NO_TARGET_FAILED,
  type TargetReport,
} from "../core/target-report.js";
import { formatSeconds } from "../core/time-format.js";
import { type Html, pageLayout, shown } from "./page-layout.js";
import { targetActivitySection } from "./target-charts.js";
import {
  ACTIVITY_REFRESH_SECONDS,
  type ActivitySample,
  type TargetReportsView,
} from "./targets-view.js";

const ago = (at: string | undefined, nowMs: number): string =>
  at === undefined ? "" : `${formatSeconds((nowMs - Date.parse(at)) / 1000)} ago`;

const failuresOf = (t: TargetReport): string =>
  `${t.failures}/${t.calls}${t.failureRate === undefined ? "" : ` (${Math.round(t.failureRate * 100)}%)`}`;

const targetLink = (t: TargetReport): Html =>
  html`<a href="/events?status=dead_lettered&target=${encodeURIComponent(t.target)}">${t.target}</a>`;

/** The learned limit's headings, as `ricochet targets` has them. */
const learnedHeadings = (): Html[] => LEARNED_LIMIT_HEADINGS.map((h) => html`<th>${h}</th>`);

/** The learned limit's cells; `data-learned` says whether any instance holds the target back. */
const learnedCells = (t: TargetReport, nowMs: number): Html => {
  const [limit, ...rest] = learnedLimitCells(t, nowMs);
  return html`<td data-learned="${t.learned === undefined ? "no" : "yes"}">${limit}</td>${rest.map((cell) => html`<td>${cell}</td>`)}`;
};

const breakerTable = (targets: readonly TargetReport[], nowMs: number): Html =>
  html`<table><thead><tr><th>target</th><th>state</th><th>failures/calls</th><th>deferred</th><th>last error</th><th>last failed</th><th>opened</th><th>closed</th>${learnedHeadings()}</tr></thead><tbody>
${targets.map(
  (t) => html`<tr data-target="${t.target}"><td>${targetLink(t)}</td>
<td data-state="${t.state}">${t.state}${t.reopenAt === undefined ? "" : `, probe in ${formatSeconds(Math.max(0, Date.parse(t.reopenAt) - nowMs) / 1000)}`}</td>
<td>${failuresOf(t)}</td>
<td>${t.deferred}</td><td>${shown(t.lastError)}</td><td>${ago(t.lastErrorAt, nowMs)}</td><td>${ago(t.openedAt, nowMs)}</td><td>${ago(t.closedAt, nowMs)}</td>
${learnedCells(t, nowMs)}</tr>`,
)}</tbody></table>`;

/** With the breakers off, a breaker's columns would only say "closed": the failures alone. */
const failureTable = (targets: readonly TargetReport[], nowMs: number): Html =>
  html`<table><thead><tr><th>target</th><th>failures/calls</th><th>last error</th><th>last failed</th>${learnedHeadings()}</tr></thead><tbody>
${targets.map(
  (t) => html`<tr data-target="${t.target}"><td>${targetLink(t)}</td><td>${failuresOf(t)}</td>
<td>${shown(t.lastError)}</td><td>${ago(t.lastErrorAt, nowMs)}</td>
${learnedCells(t, nowMs)}</tr>`,
)}</tbody></table>`;

/** The charts, refreshing themselves every {@link ACTIVITY_REFRESH_SECONDS}. */
export const targetActivityFragment = (sample: ActivitySample): Html => {
  const bound = html`<p class="bound" data-cut-short="${String(sample.cutShort)}">Last ${sample.minutes} min, from the attempt history of at most ${sample.maxRecordsRead} event records read${sample.cutShort ? html` — <strong>the table holds more: events outside those read are not counted</strong>` : ""}. Deferrals: each waiting event's latest.</p>`;
  return html`<div id="target-activity" hx-get="/targets/activity" hx-trigger="every ${ACTIVITY_REFRESH_SECONDS}s" hx-swap="outerHTML">
<h2>Outcomes and latency per minute</h2>
${bound}
${sample.targets.length === 0 ? html`<p>No attempt finished in the last ${sample.minutes} min among the records read.</p>` : sample.targets.map(targetActivitySection)}
</div>`;
};

/**
 * The targets that have failed, as `ricochet targets` reports them (says when breakers are
 * off), refreshing itself every `refreshSeconds`: a breaker's state and probe change by the
 * second during an outage.
 */
export const targetTableFragment = (view: TargetReportsView, refreshSeconds: number): Html => {
  const table = view.breakersOn ? breakerTable : failureTable;
  return html`<div id="target-table" hx-get="/targets/table" hx-trigger="every ${refreshSeconds}s" hx-swap="outerHTML">
${view.breakersOn ? "" : html`<p data-breakers="off">${BREAKERS_OFF_NOTE}</p>`}
${view.reports.length === 0 ? html`<p>${NO_TARGET_FAILED}</p>` : table(view.reports, view.nowMs)}
</div>`;
};

/** The targets page: the breaker table, then each target's outcomes and call latency per minute. */
export const targetsPage = (
  view: TargetReportsView,
  activity: ActivitySample,
  refreshSeconds: number,
): Html =>
  pageLayout(
    "Targets",
    html`${targetTableFragment(view, refreshSeconds)}
${targetActivityFragment(activity)}`,
  );
