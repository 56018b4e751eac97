import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { listDeadLetters } from "../app/dead-letter-scan.js";
import { redrive } from "../app/redrive.js";
import { parseRedriveRequest } from "../app/redrive-request.js";
import { errorMessage, InvalidRequestError } from "../core/errors.js";
import { targetReport } from "../core/target-report.js";
import type { ConsoleDeps } from "./console-deps.js";
import { groupDeadLetters } from "./dead-letter-groups.js";
import { deadLettersPage } from "./dead-letters-page.js";
import { eventQueryOf, listEvents } from "./event-listing.js";
import { eventPage } from "./event-page.js";
import { eventListFragment, eventsPage } from "./events-page.js";
import { FORM_TOKEN_FIELD, HTMX_PATH, messagePage } from "./page-layout.js";
import { type RedriveForm, redriveRequestOf } from "./redrive-form.js";
import { redriveJobPage, redriveJobSection, redriveJobUrl } from "./redrive-job-page.js";
import { createRedriveJobs, KEPT_REDRIVE_JOBS } from "./redrive-jobs.js";
import { guardRequest } from "./request-guard.js";
import { targetsPage } from "./targets-page.js";

/** The most dead-lettered messages the page lists (the scan hides each for a few seconds). */
export const DEAD_LETTER_PAGE_LIMIT = 500;
/** The most targets the page lists. */
export const TARGETS_PAGE_LIMIT = 100;
/**
 * How long a redrive's post waits for it before answering with its page: a small redrive's
 * report then comes at once, a long one's page follows it.
 */
export const REDRIVE_ANSWER_WAIT_MS = 2_000;

/** The cookie that carries the token; named for the port, as cookies ignore ports. */
export const tokenCookieName = (port: number): string => `ricochet_console_${port}`;

/** What the app needs to know about where it listens, to check requests against. */
export interface ConsoleIdentity {
  readonly port: number;
  readonly token: string;
}

/**
 * The console's routes over `deps`. Every request passes {@link guardRequest} first; a request
 * that brought the token in its URL gets it as an HttpOnly, SameSite=Strict cookie and is
 * redirected to the same URL without it, so the token stays out of history and Referer headers.
 */
export const createConsoleApp = (
  deps: ConsoleDeps,
  identity: ConsoleIdentity,
  assets: { readonly htmx: () => string },
): Hono => {
  const app = new Hono();
  const cookieName = tokenCookieName(identity.port);
  // The call `ricochet redrive` makes, with the same ports, policy and caller lookup.
  const redrives = createRedriveJobs({
    run: (request, onProgress) => redrive({ ...deps, onProgress }, request),
    clock: deps.clock,
    newId: randomUUID,
  });

  app.use(async (c, next) => {
    const form =
      c.req.method === "POST" ? ((await c.req.parseBody()) as Record<string, unknown>) : {};
    const formToken = form[FORM_TOKEN_FIELD];
    const queryToken = c.req.query("token");
    const verdict = guardRequest(
      {
        method: c.req.method,
        host: c.req.header("host"),
        origin: c.req.header("origin"),
        secFetchSite: c.req.header("sec-fetch-site"),
        queryToken,
        cookieToken: getCookie(c, cookieName),
        formToken: typeof formToken === "string" ? formToken : undefined,
      },
      identity,
    );
    if (!verdict.ok) return c.html(messagePage("Refused", verdict.reason), verdict.status);
    if (queryToken !== undefined) {
      setCookie(c, cookieName, identity.token, {
        path: "/",
        httpOnly: true,
        sameSite: "Strict",
      });
      const url = new URL(c.req.url);
      url.searchParams.delete("token");
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    c.header("Cache-Control", "no-store");
    c.header("X-Frame-Options", "DENY");
    c.header(
      "Content-Security-Policy",
      "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
    );
    await next();
  });

  app.onError((error, c) => {
    const status = error instanceof InvalidRequestError ? 400 : 500;
    return c.html(messagePage("Error", errorMessage(error)), status);
  });

  app.get(HTMX_PATH, (c) => {
    c.header("Content-Type", "text/javascript; charset=utf-8");
    return c.body(assets.htmx());
  });

  app.get("/", (c) => c.redirect("/events", 303));

  app.get("/events", async (c) => {
    const listing = await listEvents(deps.store, eventQueryOf(c.req.query()));
    return c.html(eventsPage(listing, deps.refreshSeconds));
  });

  app.get("/events/list", async (c) => {
    const listing = await listEvents(deps.store, eventQueryOf(c.req.query()));
    return c.html(eventListFragment(listing, deps.refreshSeconds));
  });

  app.get("/event", async (c) => {
    const id = c.req.query("id")?.trim() ?? "";
    const record = id === "" ? undefined : await deps.store.get(id);
    if (record === undefined)
      return c.html(messagePage("Not found", `No record for event ${id}.`), 404);
    return c.html(eventPage(record, deps.defaultPolicy));
  });

  app.get("/dead-letters", async (c) => {
    const listings = await listDeadLetters(
      deps.deadLetterQueue,
      { filter: {}, limit: DEAD_LETTER_PAGE_LIMIT },
      deps.store,
    );
    return c.html(deadLettersPage(groupDeadLetters(listings), identity.token));
  });

  app.post("/dead-letters/redrive", async (c) => {
    const form = (await c.req.parseBody()) as RedriveForm;
    const request = redriveRequestOf(form, deps.by);
    // Refused here, as a 400 with every problem, rather than as a redrive that fails later.
    parseRedriveRequest(request);
    const start = redrives.start(request);
    if (start.kind === "busy") {
      return c.html(
        messagePage(
          "A redrive is running",
          `Another redrive is still running; start this one once it has finished (${redriveJobUrl(start.running.id)}).`,
        ),
        409,
      );
    }
    await Promise.race([start.job.finished, sleep(REDRIVE_ANSWER_WAIT_MS)]);
    return c.redirect(redriveJobUrl(start.job.id), 303);
  });

  app.get("/dead-letters/redrive/job", (c) => {
    const job = redrives.get(c.req.query("id") ?? "");
    if (job === undefined) {
      return c.html(
        messagePage(
          "Not found",
          `No such redrive: the console keeps the last ${KEPT_REDRIVE_JOBS}.`,
        ),
        404,
      );
    }
    return c.req.query("part") === "status"
      ? c.html(redriveJobSection(job, identity.token))
      : c.html(redriveJobPage(job, identity.token));
  });

  app.get("/targets", async (c) => {
    const listed = await deps.targetState.list(TARGETS_PAGE_LIMIT);
    const nowMs = deps.clock();
    const reports = listed.map((t) => targetReport(t, nowMs, deps.breakerWindowMs));
    return c.html(targetsPage(reports, nowMs));
  });

  return app;
};
