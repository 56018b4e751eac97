import { html } from "hono/html";
import { redactCredentials } from "../core/redact.js";
import {
  COUNT_READ_BUDGET,
  type EventListing,
  type EventQuery,
  PAGE_READ_BUDGET,
  type StatusCount,
} from "./event-listing.js";
import { type Html, pageLayout, shown } from "./page-layout.js";

const listUrl = (path: string, query: EventQuery, page = query.page): string => {
  const params = new URLSearchParams({ status: query.status, page: String(page) });
  if (query.targetKey !== undefined) params.set("target", query.targetKey);
  return `${path}?${params}`;
};

/**
 * A status's count as shown: exact, capped ("1000+"), or, when the count's read budget stopped a
 * scan, what was found so far ("≥ 3", "?" for none) with the reason on hover.
 */
const countLabel = (c: StatusCount): Html => {
  if (!c.partial) return html`<span class="count">${c.count}${c.more ? "+" : ""}</span>`;
  const why = `found in the first ${COUNT_READ_BUDGET} records read; the rest of the table was not scanned (ricochet events --status ${c.status} reads it all)`;
  return html`<span class="count partial" title="${why}">${c.count === 0 ? "?" : `≥ ${c.count}`}</span>`;
};

/** The part of the events page that refreshes itself: counts, the page of events, paging. */
export const eventListFragment = (listing: EventListing, refreshSeconds: number): Html => {
  const { query } = listing;
  const tabs = listing.counts.map(
    (c) =>
      html`<a href="${listUrl("/events", { ...query, status: c.status }, 0)}" class="${c.status === query.status ? "on" : ""}" data-status="${c.status}">${c.status} ${countLabel(c)}</a>`,
  );
  const rows = listing.records.map(
    (r) => html`<tr data-event-id="${r.eventId}">
<td><a href="/event?id=${encodeURIComponent(r.eventId)}">${r.eventId}</a></td>
<td>${r.status}</td><td>${r.attempts}/${r.attemptBudget}</td><td>${r.updatedAt}</td>
<td>${shown(r.targetSummary)}</td><td>${redactCredentials(r.lastOutcome?.message ?? "")}</td></tr>`,
  );
  return html`<div id="event-list" hx-get="${listUrl("/events/list", query)}" hx-trigger="every ${refreshSeconds}s" hx-swap="outerHTML">
<p class="tabs">${tabs}</p>
${
  listing.records.length === 0
    ? html`<p>No ${query.status} events${query.targetKey === undefined ? "" : ` to ${query.targetKey}`}.</p>`
    : html`<table><thead><tr><th>event</th><th>status</th><th>attempts</th><th>updated</th><th>target</th><th>last outcome</th></tr></thead>
<tbody>${rows}</tbody></table>`
}
${
  listing.partial
    ? html`<p class="partial">Stopped after reading ${PAGE_READ_BUDGET} records of the table: more ${query.status} events may exist than are listed. <code>ricochet events --status ${query.status}</code> reads the whole table.</p>`
    : ""
}
<p>${query.page > 0 ? html`<a href="${listUrl("/events", query, query.page - 1)}">← previous</a>` : ""}
page ${query.page + 1}
${listing.hasNext ? html`<a href="${listUrl("/events", query, query.page + 1)}">next →</a>` : ""}</p>
</div>`;
};

/** The events page: search forms and the live list. */
export const eventsPage = (listing: EventListing, refreshSeconds: number): Html =>
  pageLayout(
    "Events",
    html`<form action="/event" method="get" class="inline">
<label>Event id <input name="id" required></label> <button>Open</button></form>
&nbsp;
<form action="/events" method="get" class="inline">
<input type="hidden" name="status" value="${listing.query.status}">
<label>Target <input name="target" value="${shown(listing.query.targetKey)}" placeholder="http:https://host:443, lambda:name, group:name"></label>
<button>Filter</button></form>
&nbsp; <a href="/events/stuck">Stuck events</a>
${eventListFragment(listing, refreshSeconds)}`,
  );
