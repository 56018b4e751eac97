import { html } from "hono/html";
import type { StatusListing } from "../core/ports.js";
import { DEFAULT_STUCK_AFTER_SECONDS } from "../core/stuck.js";
import { type Html, pageLayout, shown } from "./page-layout.js";

/** The stuck events the page lists at most; the CLI's `--limit` reads further. */
export const STUCK_PAGE_LIMIT = 100;

/**
 * The stuck events page: waiting events long past due with no message left (lib/core/stuck.ts),
 * from the due index as `ricochet events --stuck` reads them, oldest due first.
 */
export const stuckEventsPage = (listing: StatusListing): Html => {
  const rows = listing.records.map(
    (r) => html`<tr data-event-id="${r.eventId}">
<td><a href="/event?id=${encodeURIComponent(r.eventId)}">${r.eventId}</a></td>
<td>${r.status}</td><td>${shown(r.nextAttemptAt)}</td><td>${r.attempts}/${r.attemptBudget}</td>
<td>${shown(r.targetSummary)}</td></tr>`,
  );
  const hours = DEFAULT_STUCK_AFTER_SECONDS / 3600;
  return pageLayout(
    "Stuck events",
    html`<p>Waiting events due more than ${hours} h ago and never claimed since: no message is left
to deliver them. Replay or redrive them from their page.</p>
${
  listing.records.length === 0
    ? html`<p>No stuck events.</p>`
    : html`<table><thead><tr><th>event</th><th>status</th><th>was due</th><th>attempts</th><th>target</th></tr></thead>
<tbody>${rows}</tbody></table>`
}
${listing.cutShort ? html`<p class="partial">More than ${STUCK_PAGE_LIMIT} stuck events: <code>ricochet events --stuck --limit 1000</code> lists more.</p>` : ""}`,
  );
};
