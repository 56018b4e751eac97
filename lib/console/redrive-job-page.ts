import { html } from "hono/html";
import type { RedriveProgress } from "../app/operator/redrive-deps.js";
import { isoOf } from "../core/time-format.js";
import { redriveReportSection } from "./dead-letters-page.js";
import { type Html, pageLayout } from "./page-layout.js";
import type { RedriveJob } from "./redrive-jobs.js";

/** Seconds between looks at a running redrive. */
const REDRIVE_POLL_SECONDS = 1;

/** Where a redrive's page is. */
export const redriveJobUrl = (id: string, part?: "status"): string =>
  `/dead-letters/redrive/job?id=${encodeURIComponent(id)}${part === undefined ? "" : `&part=${part}`}`;

const progressLine = (progress: RedriveProgress | undefined): string => {
  if (progress === undefined) return "Starting…";
  if (progress.phase === "scan")
    return `Reading the dead-letter queue: ${progress.done} copies seen.`;
  return `Moving: ${progress.done}${progress.total === undefined ? "" : ` of ${progress.total}`} handled.`;
};

/**
 * The part of a redrive's page that follows it: while it runs, its progress, asking again every
 * second; once it has finished, its report (and, after a dry run, the confirmation form), and no
 * more asking.
 */
export const redriveJobSection = (job: RedriveJob, formToken: string): Html => {
  if (job.report !== undefined) {
    return html`<div id="redrive-job" data-state="done">${redriveReportSection(job.report, job.request, formToken)}</div>`;
  }
  if (job.error !== undefined) {
    return html`<div id="redrive-job" data-state="failed"><p class="error">The redrive failed: ${job.error}</p>
<p><a href="/dead-letters">back to the dead letters</a></p></div>`;
  }
  return html`<div id="redrive-job" data-state="running" hx-get="${redriveJobUrl(job.id, "status")}" hx-trigger="every ${REDRIVE_POLL_SECONDS}s" hx-swap="outerHTML">
<p class="progress">${progressLine(job.progress)}</p>
<p>Started ${isoOf(job.startedAtMs)} by <strong>${job.request.by}</strong>.</p>
<p>It goes on if you leave this page; come back to <a href="${redriveJobUrl(job.id)}">this address</a> to see its report.</p></div>`;
};

/** A redrive's page: a dry run's or a move's, running or finished. */
export const redriveJobPage = (job: RedriveJob, formToken: string): Html =>
  pageLayout(
    job.request.dryRun === false ? "Redrive" : "Redrive: dry run",
    redriveJobSection(job, formToken),
  );
