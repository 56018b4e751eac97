import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTargetBreakers } from "../../lib/app/target-breakers.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import { silentLog } from "../../lib/core/observability.js";
import type { EventRecord } from "../../lib/core/record.js";
import { PROJECT_ROOT } from "../../lib/infra/bundling.js";
import { ANA_CALLER } from "../support/counting-caller-identity.js";
import { deadLetterEvent } from "../support/dead-letter-fixture.js";
import { anEnvelope } from "../support/factories.js";
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

const CHROMIUM = process.env.RICOCHET_CHROMIUM ?? "/usr/bin/chromium";
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
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  // The printed address: its token becomes the cookie every later page rides on.
  await page.goto(world.console.url);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await world?.console.close();
});

describe("the console in a browser", () => {
  it("opens on the events list, with the dead-lettered events counted", async () => {
    expect(new URL(page.url()).searchParams.has("token")).toBe(false);
    await expect
      .poll(() => page.locator('[data-status="dead_lettered"] .count').textContent())
      .toBe("2");
    await expect.poll(() => page.locator("#event-list tr[data-event-id]").count()).toBe(2);
  });

  it("refreshes the list by itself when an event is delivered meanwhile", async () => {
    await page.goto(`${world.origin}/events?status=delivered`);
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
    await expect.poll(() => page.locator("h1").textContent()).toBe(`Event ${retried.eventId}`);
  });

  it("shows an event's attempts on a timeline that matches its record", async () => {
    await page.goto(`${world.origin}/event?id=${encodeURIComponent(retried.eventId)}`);
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
    if (process.env.RICOCHET_CONSOLE_SCREENSHOT === "1") {
      await mkdir(dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
    }
  });

  it("shows a failing target's breaker open, its last error redacted", async () => {
    const partner = "http:https://partner.example:443";
    const breakers = createTargetBreakers({
      store: world.deps.targetState,
      // Open for long enough that it is still open when the page reads it, however slow the run.
      settings: { ...DEFAULT_BREAKER_SETTINGS, openMs: 3_600_000, maxOpenMs: 3_600_000 },
      clock: Date.now,
      log: silentLog,
    });
    for (let i = 0; i < DEFAULT_BREAKER_SETTINGS.minimumCalls; i += 1)
      await breakers.recordCall(partner, true, "call", "HTTP 503: Bearer abc.def.ghi says no");
    await page.goto(`${world.origin}/targets`);
    const row = page.locator(`tr[data-target="${partner}"]`);
    expect(await row.locator("[data-state]").getAttribute("data-state")).toBe("open");
    const text = (await row.textContent()) ?? "";
    expect(text).toContain("HTTP 503");
    expect(text).not.toContain("abc.def.ghi");
  });

  it("redrives from the dead-letter page only after a dry run and a confirmation, audited like the CLI", async () => {
    await page.goto(`${world.origin}/dead-letters`);
    await expect
      .poll(() => page.locator('section[data-reason="exhausted"] .count').textContent())
      .toBe("2");
    await page.selectOption('select[name="reason"]', "exhausted");
    await page.fill('input[name="why"]', "partner API fixed");
    await page.click('#redrive-form button[type="submit"]');

    await expect.poll(() => page.locator("tr[data-moved]").count()).toBe(2);
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
    await expect.poll(() => page.locator("p.summary").textContent()).toContain("2 moved");
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
    await page.goto(`${world.origin}/event?id=${encodeURIComponent(deadLettered[0] ?? "")}`);
    const audit = page.locator('ol.timeline li.audit[data-action="redriven"]');
    await expect.poll(() => audit.count()).toBe(1);
    expect(await audit.locator(".by").textContent()).toBe(CONSOLE_TEST_BY);
  });
});
