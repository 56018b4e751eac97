import { Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { listDeadLetters } from "../app/dead-letter-scan.js";
import { redrive } from "../app/redrive.js";
import { errorMessage, InvalidRequestError } from "../core/errors.js";
import { targetReport } from "../core/target-report.js";
import type { ConsoleDeps } from "./console-deps.js";
import { groupDeadLetters } from "./dead-letter-groups.js";
import { deadLettersPage, redriveReportPage } from "./dead-letters-page.js";
import { eventQueryOf, listEvents } from "./event-listing.js";
import { eventPage } from "./event-page.js";
import { eventListFragment, eventsPage } from "./events-page.js";
import { FORM_TOKEN_FIELD, HTMX_PATH, messagePage } from "./page-layout.js";
import { type RedriveForm, redriveRequestOf } from "./redrive-form.js";
import { guardRequest } from "./request-guard.js";
import { targetsPage } from "./targets-page.js";

/** The most dead-lettered messages the page lists (the scan hides each for a few seconds). */
export const DEAD_LETTER_PAGE_LIMIT = 500;
/** The most targets the page lists. */
export const TARGETS_PAGE_LIMIT = 100;

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
    const listings = await listDeadLetters(deps.deadLetterQueue, {
      filter: {},
      limit: DEAD_LETTER_PAGE_LIMIT,
    });
    return c.html(deadLettersPage(groupDeadLetters(listings), identity.token));
  });

  app.post("/dead-letters/redrive", async (c) => {
    const form = (await c.req.parseBody()) as RedriveForm;
    const request = redriveRequestOf(form, deps.by);
    // The call `ricochet redrive` makes, with the same ports, policy and caller lookup.
    const report = await redrive(deps, request);
    return c.html(redriveReportPage(report, request, identity.token));
  });

  app.get("/targets", async (c) => {
    const listed = await deps.targetState.list(TARGETS_PAGE_LIMIT);
    const nowMs = deps.clock();
    const reports = listed.map((t) => targetReport(t, nowMs, deps.breakerWindowMs));
    return c.html(targetsPage(reports, nowMs));
  });

  return app;
};
