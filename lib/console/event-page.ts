import { html } from "hono/html";
import type { RetryPolicy } from "../core/policy.js";
import type { EventRecord } from "../core/record.js";
import { recordFacts } from "../core/record-facts.js";
import { formatSeconds } from "../core/time-format.js";
import {
  type AttemptItem,
  type AuditItem,
  eventTimeline,
  plannedBesideActual,
  type RunningItem,
  type TimelineItem,
} from "./event-timeline.js";
import { type Html, pageLayout, shown } from "./page-layout.js";
import { timelineBars, timelineChart } from "./timeline-bars.js";

const took = (from: string, to: string): string => {
  const ms = Math.max(0, Date.parse(to) - Date.parse(from));
  return ms < 1000 ? `${ms} ms` : formatSeconds(ms / 1000);
};

const attemptItem = (
  a: AttemptItem,
): Html => html`<li class="attempt" data-attempt="${a.attempt}" data-outcome="${a.outcome}" data-status-code="${shown(a.statusCode)}" data-delay="${shown(a.delaySeconds)}">
<strong>${a.noCall === true ? "No call" : html`Attempt ${a.attempt}`}</strong> <span class="outcome-${a.outcome}">${a.outcome}</span>
${a.statusCode === undefined ? "" : html` · HTTP ${a.statusCode}`}${a.errorCategory === undefined ? "" : html` · ${a.errorCategory}`}${a.traceId === undefined ? "" : html` · trace <code class="trace-id">${a.traceId}</code>`}
<br>claimed <time>${a.claimedAt}</time>${a.sentAt === undefined ? "" : html` · sent <time>${a.sentAt}</time>`} · finished <time>${a.finishedAt}</time> (${took(a.claimedAt, a.finishedAt)})
<br><span class="message">${a.message}</span>
${a.delaySeconds === undefined ? "" : html`<div class="gap">↓ next attempt in ${a.delaySeconds}s</div>`}
</li>`;

const runningItem = (r: RunningItem): Html =>
  html`<li class="running" data-attempt="${r.attempt}"><strong>Attempt ${r.attempt}</strong> running since <time>${r.at}</time> (${r.worker})</li>`;

const auditItem = (a: AuditItem): Html => html`<li class="audit" data-action="${a.action}">
<strong>${a.action}</strong> <time>${a.at}</time> by <span class="by">${a.by}</span>${a.caller === "" ? "" : html` · caller ${a.caller}`}
${a.previousStatus === undefined ? "" : html` · from ${a.previousStatus}`}
<br>why: <span class="reason">${a.reason}</span>${a.detail === undefined ? "" : html` · ${a.detail}`}
</li>`;

const timelineItem = (item: TimelineItem): Html => {
  switch (item.kind) {
    case "attempt":
      return attemptItem(item);
    case "running":
      return runningItem(item);
    case "audit":
      return auditItem(item);
  }
};

const scheduleTable = (record: EventRecord, policy: RetryPolicy): Html => {
  const rows = plannedBesideActual(record, policy).map(
    (row) => html`<tr data-retry="${row.retry}"><td>${row.retry}</td>
<td>${row.plannedMinSeconds === row.plannedMaxSeconds ? row.plannedMinSeconds : `${row.plannedMinSeconds}–${row.plannedMaxSeconds}`} s</td>
<td class="actual">${row.actualSeconds === undefined ? "" : `${row.actualSeconds} s`}</td>
<td class="${shown(row.verdict)}">${shown(row.verdict)}</td></tr>`,
  );
  return html`<h2>Schedule: planned beside actual</h2>
<p>Planned: the deployment's default policy (${policy.maxAttempts} attempts, ${policy.jitter} jitter, base ${policy.baseDelaySeconds}s, ×${policy.multiplier}, cap ${policy.maxDelaySeconds}s); an event that overrode it shows this plan beside its own draws. A delay above the range is a Retry-After hint the target gave.</p>
<table class="schedule"><thead><tr><th>retry</th><th>planned delay</th><th>actual delay</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
};

/**
 * One event's page at `nowMs`: its record's summary (the facts `ricochet status` shows), its
 * timeline, its planned and actual schedule.
 */
export const eventPage = (
  record: EventRecord,
  policy: RetryPolicy,
  nowMs: number = Date.now(),
): Html => {
  const summary = recordFacts(record, nowMs)
    .filter(({ name }) => name !== "event")
    .map(
      ({ name, value }) =>
        html`<tr><th>${name}</th><td data-fact="${name}">${typeof value === "object" ? value.map((line, i) => html`${i === 0 ? "" : html`<br>`}${line}`) : value}</td></tr>`,
    );
  const timeline = eventTimeline(record);
  return pageLayout(
    `Event ${record.eventId}`,
    html`<table class="summary">${summary}</table>
<h2>Timeline</h2>
${timelineChart(timelineBars(timeline, record, nowMs))}
${timeline.length === 0 ? html`<p>No attempt yet.</p>` : html`<ol class="timeline">${timeline.map(timelineItem)}</ol>`}
${scheduleTable(record, policy)}`,
  );
};
