import { html } from "hono/html";
import type { TargetReport } from "../core/target-report.js";
import { formatSeconds } from "../core/time-format.js";
import { type Html, pageLayout, shown } from "./page-layout.js";

const ago = (at: string | undefined, nowMs: number): string =>
  at === undefined ? "" : `${formatSeconds((nowMs - Date.parse(at)) / 1000)} ago`;

/** The targets whose breakers have state, as `ricochet targets` reports them. */
export const targetsPage = (targets: readonly TargetReport[], nowMs: number): Html =>
  pageLayout(
    "Targets",
    targets.length === 0
      ? html`<p>No target has failed yet.</p>`
      : html`<table><thead><tr><th>target</th><th>state</th><th>failures/calls</th><th>deferred</th><th>last error</th><th>opened</th><th>closed</th></tr></thead><tbody>
${targets.map(
  (
    t,
  ) => html`<tr data-target="${t.target}"><td><a href="/events?status=dead_lettered&target=${encodeURIComponent(t.target)}">${t.target}</a></td>
<td data-state="${t.state}">${t.state}${t.reopenAt === undefined ? "" : `, probe in ${formatSeconds(Math.max(0, Date.parse(t.reopenAt) - nowMs) / 1000)}`}</td>
<td>${t.failures}/${t.calls}${t.failureRate === undefined ? "" : ` (${Math.round(t.failureRate * 100)}%)`}</td>
<td>${t.deferred}</td><td>${shown(t.lastError)}</td><td>${ago(t.openedAt, nowMs)}</td><td>${ago(t.closedAt, nowMs)}</td></tr>`,
)}</tbody></table>`,
  );
