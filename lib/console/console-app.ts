import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { listDeadLetters } from "../app/operator/dead-letter-scan.js";
import { redrive } from "../app/operator/redrive.js";
import { MAX_REDRIVE_LIMIT, parseRedriveRequest } from "../app/operator/redrive-request.js";
import { MAX_EVENT_ID_LENGTH } from "../core/envelope.js";
import { errorMessage, InvalidRequestError } from "../core/errors.js";
import { DEFAULT_STUCK_AFTER_SECONDS, DEFAULT_STUCK_LOOKBACK_DAYS } from "../core/stuck.js";
import type { ConsoleDeps } from "./console-deps.js";
import { CONSOLE_SCRIPT_PATH, consoleScript } from "./console-script.js";
import { groupDeadLetters } from "./dead-letter-groups.js";
import { deadLettersPage } from "./dead-letters-page.js";
import { eventQueryOf, listEvents } from "./event-listing.js";
import { eventPage } from "./event-page.js";
import { eventListFragment, eventsPage } from "./events-page.js";
import { FORM_TOKEN_FIELD, HTMX_PATH, messagePage, shellPage } from "./page-layout.js";
import { type RedriveForm, redriveRequestOf } from "./redrive-form.js";
import { redriveJobPage, redriveJobSection, redriveJobUrl } from "./redrive-job-page.js";
import { createRedriveJobs, KEPT_REDRIVE_JOBS } from "./redrive-jobs.js";
import {
  CONSOLE_TOKEN_HEADER,
  type GuardRefusal,
  guardForm,
  guardRequest,
  refusal,
} from "./request-guard.js";
import { STUCK_PAGE_LIMIT, stuckEventsPage } from "./stuck-events-page.js";
import { targetActivityFragment, targetsPage, targetTableFragment } from "./targets-page.js";
import { readTargetActivity, readTargetReports } from "./targets-view.js";

/** The most dead-lettered messages the page lists (the scan hides each for a few seconds). */
const DEAD_LETTER_PAGE_LIMIT = 500;
/** The most targets the page lists. */
const TARGETS_PAGE_LIMIT = 100;
/**
 * How long a redrive's post waits for it before answering with its page: a small redrive's
 * report then comes at once, a long one's page follows it.
 */
const REDRIVE_ANSWER_WAIT_MS = 2_000;

/**
 * The largest body the console reads: the confirmation of the largest redrive (every event id
 * at its longest, every character percent-encoded) with room for the other fields. Anything
 * larger is refused with 413 before it is buffered.
 */
export const MAX_CONSOLE_BODY_BYTES = MAX_REDRIVE_LIMIT * (3 * MAX_EVENT_ID_LENGTH + 1) + 64 * 1024;

/** What the app needs to know about where it listens, to check requests against. */
export interface ConsoleIdentity {
  readonly port: number;
  /** The credential every request but a navigation carries, in {@link CONSOLE_TOKEN_HEADER}. */
  readonly token: string;
  /** The token every change's form carries (a second secret, in the pages, never the first). */
  readonly formToken: string;
}

interface ConsoleAssets {
  readonly htmx: () => string;
}

const refused = (c: Context, verdict: GuardRefusal): Response | Promise<Response> =>
  c.html(messagePage("Refused", verdict.reason), verdict.status);

/** Security headers on every answer, then the request's head checked before anything reads it. */
const guardRequests = (app: Hono, identity: ConsoleIdentity): void => {
  const expected = {
    port: identity.port,
    token: identity.token,
    publicPaths: new Set([HTMX_PATH, CONSOLE_SCRIPT_PATH]),
  };
  app.use(async (c, next) => {
    c.header("Cache-Control", "no-store");
    c.header("X-Frame-Options", "DENY");
    c.header(
      "Content-Security-Policy",
      "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
    );
    c.header("Referrer-Policy", "same-origin");
    const verdict = guardRequest(
      {
        method: c.req.method,
        path: c.req.path,
        host: c.req.header("host"),
        origin: c.req.header("origin"),
        secFetchSite: c.req.header("sec-fetch-site"),
        headerToken: c.req.header(CONSOLE_TOKEN_HEADER),
      },
      expected,
    );
    if (verdict.kind === "refuse") return refused(c, verdict);
    if (verdict.kind === "shell") return c.html(shellPage(identity.port));
    await next();
  });
};

/** A body over the limit refused unread; a change's form must carry the form token. */
const guardBodies = (app: Hono, identity: ConsoleIdentity): void => {
  app.use(
    bodyLimit({
      maxSize: MAX_CONSOLE_BODY_BYTES,
      onError: (c) =>
        refused(
          c,
          refusal(
            413,
            `request body over ${MAX_CONSOLE_BODY_BYTES} bytes refused: console forms are smaller`,
          ),
        ),
    }),
  );
  app.use(async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const form = (await c.req.parseBody()) as Record<string, unknown>;
      const verdict = guardForm(form[FORM_TOKEN_FIELD], identity.formToken);
      if (verdict.kind === "refuse") return refused(c, verdict);
    }
    await next();
  });
};

const serveScripts = (app: Hono, assets: ConsoleAssets): void => {
  app.get(HTMX_PATH, (c) => {
    c.header("Content-Type", "text/javascript; charset=utf-8");
    return c.body(assets.htmx());
  });
  app.get(CONSOLE_SCRIPT_PATH, (c) => {
    c.header("Content-Type", "text/javascript; charset=utf-8");
    return c.body(consoleScript());
  });
};

const serveEvents = (app: Hono, deps: ConsoleDeps): void => {
  app.get("/events", async (c) => {
    const listing = await listEvents(deps.store, eventQueryOf(c.req.query()));
    return c.html(eventsPage(listing, deps.refreshSeconds));
  });
  app.get("/events/stuck", async (c) => {
    const listing = await deps.store.listStuck({
      cutoffMs: Date.now() - DEFAULT_STUCK_AFTER_SECONDS * 1000,
      lookbackDays: DEFAULT_STUCK_LOOKBACK_DAYS,
      limit: STUCK_PAGE_LIMIT,
    });
    return c.html(stuckEventsPage(listing));
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
    return c.html(eventPage(record, deps.defaultPolicy, deps.clock()));
  });
};

/** The dead-letter page, and redrives started from it, one at a time, in the background. */
const serveDeadLetters = (app: Hono, deps: ConsoleDeps, identity: ConsoleIdentity): void => {
  // The call `ricochet redrive` makes, with the same ports, policy and caller lookup.
  const redrives = createRedriveJobs({
    run: (request, onProgress) => redrive({ ...deps, onProgress }, request),
    clock: deps.clock,
    newId: randomUUID,
  });
  app.get("/dead-letters", async (c) => {
    const listings = await listDeadLetters(
      deps.deadLetterQueue,
      { filter: {}, limit: DEAD_LETTER_PAGE_LIMIT },
      deps.store,
    );
    return c.html(deadLettersPage(groupDeadLetters(listings), identity.formToken));
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
      ? c.html(redriveJobSection(job, identity.formToken))
      : c.html(redriveJobPage(job, identity.formToken));
  });
};

const serveTargets = (app: Hono, deps: ConsoleDeps): void => {
  app.get("/targets", async (c) => {
    const [view, activity] = await Promise.all([
      readTargetReports(deps, TARGETS_PAGE_LIMIT),
      readTargetActivity(deps, TARGETS_PAGE_LIMIT),
    ]);
    return c.html(targetsPage(view, activity, deps.refreshSeconds));
  });
  app.get("/targets/table", async (c) =>
    c.html(
      targetTableFragment(await readTargetReports(deps, TARGETS_PAGE_LIMIT), deps.refreshSeconds),
    ),
  );
  app.get("/targets/activity", async (c) =>
    c.html(targetActivityFragment(await readTargetActivity(deps, TARGETS_PAGE_LIMIT))),
  );
};

/**
 * The console's routes over `deps`. Every request passes {@link guardRequest} on its head
 * before anything reads its body; a navigation without the token gets the shell page; a body
 * over {@link MAX_CONSOLE_BODY_BYTES} is refused unread; a change needs the form token too.
 */
export const createConsoleApp = (
  deps: ConsoleDeps,
  identity: ConsoleIdentity,
  assets: ConsoleAssets,
): Hono => {
  const app = new Hono();
  // Hono runs middleware in the order it is added: the head's guard before the body is read.
  guardRequests(app, identity);
  guardBodies(app, identity);
  app.onError((error, c) => {
    const status = error instanceof InvalidRequestError ? 400 : 500;
    return c.html(messagePage("Error", errorMessage(error)), status);
  });
  serveScripts(app, assets);
  app.get("/", (c) => c.redirect("/events", 303));
  serveEvents(app, deps);
  serveDeadLetters(app, deps, identity);
  serveTargets(app, deps);
  return app;
};
