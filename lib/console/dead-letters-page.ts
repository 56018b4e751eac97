import { html } from "hono/html";
import { type DeadLetterListing, listingDetail } from "../app/operator/dead-letter-scan.js";
import type { RedriveReport } from "../app/operator/redrive.js";
import type { RedriveRequestInput } from "../app/operator/redrive-request.js";
import { countOf } from "../core/count-text.js";
import { type DeadLetterGroup, UNREADABLE_REASON } from "./dead-letter-groups.js";
import { changeForm, type Html, pageLayout, shown } from "./page-layout.js";

const REDRIVE_PATH = "/dead-letters/redrive";

const eventCell = (m: DeadLetterListing): Html =>
  m.eventId === undefined
    ? html`<em>${shown(m.error)}</em>`
    : html`<a href="/event?id=${encodeURIComponent(m.eventId)}">${m.eventId}</a>`;

/** Only a verified copy's summary is Ricochet's word; a redrive from here never moves the others. */
const standingCell = (m: DeadLetterListing): Html | string =>
  m.verified
    ? "verified"
    : m.unverified === undefined
      ? ""
      : html`<strong class="unverified">unverified</strong>: ${m.unverified}`;

const messageRow = (m: DeadLetterListing): Html =>
  html`<tr data-verified="${String(m.verified)}"><td>${eventCell(m)}</td><td>${shown(m.attempts)}</td><td>${m.deadLetteredAt}</td>
<td>${shown(listingDetail(m))}</td><td>${m.messageId}</td><td>${standingCell(m)}</td></tr>`;

const groupSection = (group: DeadLetterGroup): Html => html`<section data-reason="${group.reason}">
<h2>${group.reason} <span class="count">${group.count}</span></h2>
<p>dead-lettered ${group.oldest} … ${group.newest}</p>
<table><thead><tr><th>event</th><th>attempts</th><th>dead-lettered</th><th>last outcome or problems</th><th>message</th><th>record</th></tr></thead>
<tbody>${group.messages.map(messageRow)}</tbody></table></section>`;

const reasonOptions = (groups: readonly DeadLetterGroup[]): Html[] =>
  groups
    .filter((g) => g.reason !== UNREADABLE_REASON)
    .map((g) => html`<option value="${g.reason}">${g.reason} (${g.count})</option>`);

/** The dead-letter queue grouped by reason, and the redrive form (its first post is a dry run). */
export const deadLettersPage = (groups: readonly DeadLetterGroup[], formToken: string): Html =>
  pageLayout(
    "Dead letters",
    html`${groups.length === 0 ? html`<p>The dead-letter queue is empty.</p>` : groups.map(groupSection)}
${changeForm(
  REDRIVE_PATH,
  "redrive-form",
  formToken,
  html`<fieldset><legend>Redrive</legend>
<label>Reason <select name="reason"><option value="">any</option>${reasonOptions(groups)}</select></label>
<label>Event ids <input name="eventIds" placeholder="space-separated, optional"></label>
<label>Target <input name="target" placeholder="optional target key"></label>
<label><input type="checkbox" name="resetAttempts"> fresh budget</label>
<label>Why <input name="why" placeholder="for the audit entry"></label>
<button type="submit">Dry run</button>
<p>A dry run changes nothing; the next page asks for confirmation before moving anything. Unverified copies are never moved from here (<code>ricochet redrive --include-unverified</code> moves them).</p>
</fieldset>`,
)}`,
  );

const hidden = (name: string, value: string | undefined): Html | string =>
  value === undefined ? "" : html`<input type="hidden" name="${name}" value="${value}">`;

const reportTable = (report: RedriveReport): Html => {
  const verb = report.dryRun ? "would move" : "moved";
  return html`<table class="report"><thead><tr><th></th><th>event</th><th>message</th><th>detail</th></tr></thead><tbody>
${report.moved.map((m) => html`<tr data-moved="${m.eventId}"><td>${verb}</td><td>${m.eventId}</td><td></td><td>generation ${m.generation}, budget ${m.attemptBudget}</td></tr>`)}
${report.skipped.map((s) => html`<tr><td>skipped</td><td>${shown(s.eventId)}</td><td>${s.messageId}</td><td>${s.reason}</td></tr>`)}
${report.failed.map((f) => html`<tr><td>failed</td><td>${shown(f.eventId)}</td><td>${f.messageId}</td><td>${f.error}</td></tr>`)}
</tbody></table>
<p class="summary">${report.dryRun ? "Dry run: " : ""}${report.moved.length} ${verb}, ${report.skipped.length} skipped, ${report.failed.length} failed.</p>`;
};

/**
 * A redrive's report. After a dry run that would move something, the confirmation form: the same
 * request again, with `confirm`, narrowed to the events the dry run listed, so that an event
 * dead-lettered meanwhile is not moved unseen (one redriven meanwhile is skipped, and said so).
 */
export const redriveReportSection = (
  report: RedriveReport,
  request: RedriveRequestInput,
  formToken: string,
): Html => {
  const confirm =
    report.dryRun && report.moved.length > 0
      ? changeForm(
          REDRIVE_PATH,
          "confirm-form",
          formToken,
          html`${hidden("reason", request.reasons?.[0])}${hidden("eventIds", report.moved.map((m) => m.eventId).join(" "))}
${hidden("target", request.target)}${hidden("resetAttempts", request.resetAttempts === true ? "on" : undefined)}
${hidden("why", request.why)}
<input type="hidden" name="confirm" value="yes">
<button type="submit">Move ${countOf(report.moved.length, "event")} now</button> as <strong>${request.by}</strong>`,
        )
      : "";
  return html`${reportTable(report)}${confirm}<p><a href="/dead-letters">back to the dead letters</a></p>`;
};
