import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHELL_ID } from "../../lib/console/console-script.js";
import { FAILURE_FLUSH_MS } from "../../lib/core/breaker-cache.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import { envelopeDigest } from "../../lib/core/envelope-digest.js";
import { DEFAULT_POLICY } from "../../lib/core/policy.js";
import { describeTarget } from "../../lib/core/redact.js";
import { PROJECT_ROOT } from "../../lib/infra/bundling.js";
import { aLambdaTarget, anEnvelope, anHttpTarget, FIXED_NOW_MS } from "../support/factories.js";
import { launchHeadlessChromium } from "../support/headless-chromium.js";
import { breakersOpenedFor } from "../support/open-breaker.js";
import {
  type ConsoleWorld,
  type SeededAttempt,
  seedAttempts,
  startConsoleWorld,
} from "./console-world.js";

/*
 * The targets page in a real browser (Debian's chromium, driven by playwright-core) against the
 * emulators, for a partner that went down for twelve minutes and recovered: its events written
 * through the real store as the orchestrator would, at times on a fixed clock the console reads
 * too. Set RICOCHET_CONSOLE_SCREENSHOT=1 to rewrite docs/images/targets-page.png.
 */

const SCREENSHOT = join(PROJECT_ROOT, "docs", "images", "targets-page.png");
const MINUTE = 60_000;
/** The console's now: half a minute into the charted hour's last minute. */
const NOW_MS = FIXED_NOW_MS + 59 * MINUTE + 30_000;
const DOWN_MS = FIXED_NOW_MS + 20 * MINUTE;
const UP_MS = FIXED_NOW_MS + 32 * MINUTE;
const PARTNER = anHttpTarget({ url: "https://partner.example/hooks/orders" });
const PARTNER_KEY = "http:https://partner.example:443";
const BILLING = aLambdaTarget({ functionName: "billing" });

/** Attempts of an event first tried at `startMs`: failing while the partner is down, up to the budget. */
const partnerAttempts = (startMs: number, i: number): SeededAttempt[] => {
  const attempts: SeededAttempt[] = [];
  let at = startMs;
  while (at >= DOWN_MS && at < UP_MS && attempts.length < 4) {
    const last = attempts.length === 3;
    const delaySeconds = last ? undefined : 60 * 2 ** attempts.length + (i % 20);
    const callMs = 2_000 + ((i * 137 + attempts.length * 311) % 3_000);
    attempts.push({
      outcome: "retryable",
      statusCode: 503,
      message: "HTTP 503 Service Unavailable",
      callMs,
      ...(delaySeconds === undefined ? {} : { delaySeconds }),
    });
    at += 10 + callMs + (delaySeconds ?? 0) * 1000;
  }
  if (attempts.length === 4) return attempts;
  return [
    ...attempts,
    { outcome: "success", statusCode: 200, message: "HTTP 200", callMs: 60 + ((i * 53) % 90) },
  ];
};

/** Runs `tasks` a few at a time: the emulators are shared with the other tests. */
const inBatches = async (tasks: readonly (() => Promise<unknown>)[], size = 6): Promise<void> => {
  for (let i = 0; i < tasks.length; i += size) {
    await Promise.all(tasks.slice(i, i + size).map((task) => task()));
  }
};

let world: ConsoleWorld;
let browser: Browser;
let page: Page;

const seed = async (): Promise<void> => {
  const store = world.deps.store;
  const partner = Array.from({ length: 88 }, (_, i) => () => {
    const startMs = FIXED_NOW_MS + i * 40_000;
    const envelope = anEnvelope({ eventId: `order-${1000 + i}`, target: PARTNER });
    return seedAttempts(store, partnerAttempts(startMs, i), envelope, startMs);
  });
  const billing = Array.from({ length: 30 }, (_, i) => () => {
    const startMs = FIXED_NOW_MS + i * 115_000;
    const envelope = anEnvelope({ eventId: `invoice-${i}`, target: BILLING });
    const callMs = 25 + ((i * 31) % 40);
    return seedAttempts(
      store,
      [{ outcome: "success", statusCode: 200, message: "ok", callMs }],
      envelope,
      startMs,
    );
  });
  // The backlog meets the partner's rate limit as it catches up: held back, not attempted.
  const deferred = Array.from({ length: 5 }, (_, i) => async () => {
    const envelope = anEnvelope({ eventId: `order-late-${i}`, target: PARTNER });
    await store.recordDeferral({
      eventId: envelope.eventId,
      generation: 0,
      nowMs: NOW_MS - 90_000 + i * 15_000,
      attemptBudget: DEFAULT_POLICY.maxAttempts,
      targetSummary: describeTarget(envelope.target),
      envelopeDigest: envelopeDigest(envelope),
      dueMs: NOW_MS + 30_000,
      cause: "rate_limit",
      targetKey: PARTNER_KEY,
    });
  });
  await inBatches([...partner, ...billing, ...deferred]);
};

/** The partner's breaker opened by the outage and closed by the probe after it. */
const breakOutage = async (): Promise<void> => {
  const { breakers, setClock } = await breakersOpenedFor(
    world.deps.targetState,
    PARTNER_KEY,
    "HTTP 503 Service Unavailable",
    { settings: DEFAULT_BREAKER_SETTINGS, startMs: DOWN_MS + 30_000 },
  );
  setClock(UP_MS);
  const admission = await breakers.admit(PARTNER_KEY);
  expect(admission.verdict).toBe("probe");
  await breakers.recordCall(PARTNER_KEY, false, "probe");
};

beforeAll(async () => {
  world = await startConsoleWorld("targets-browser", { clock: () => NOW_MS });
  await seed();
  await breakOutage();
  browser = await launchHeadlessChromium();
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  await page.goto(world.console.url);
  await page.locator(`#${SHELL_ID}`).waitFor({ state: "detached" });
  await page.goto(`${world.origin}/targets`);
  await page.locator(`#${SHELL_ID}`).waitFor({ state: "detached" });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await world?.console.close();
});

/** "00:25" → the minute's offset from the fixed clock's start. */
const minuteOf = (title: string): number => {
  const [hours, minutes] = (title.slice(0, 5).split(":") as [string, string]).map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
};

/** The minutes whose bar of `kind` the partner's outcome chart draws, from the bars' titles. */
const minutesWith = async (kind: string): Promise<number[]> => {
  const section = page.locator(`section[data-activity-target="${PARTNER_KEY}"]`);
  const titles = await section.locator(`rect[data-kind="${kind}"] > title`).allTextContents();
  return titles.map(minuteOf);
};

describe("the targets page in a browser, for a target that went down and recovered", () => {
  it("draws the partner's outcomes per minute: delivered, then only retries and failures while down, then delivered again", async () => {
    const delivered = await minutesWith("delivered");
    const retried = await minutesWith("retried");
    const failed = await minutesWith("failed");
    expect(delivered.filter((m) => m < 20).length).toBeGreaterThan(10);
    expect(delivered.filter((m) => m >= 20 && m < 32)).toEqual([]);
    expect(delivered.filter((m) => m >= 32).length).toBeGreaterThan(10);
    expect(retried.length).toBeGreaterThan(5);
    expect(retried.every((m) => m >= 20 && m < 32)).toBe(true);
    expect(failed.length).toBeGreaterThan(0);
    expect(await minutesWith("deferred")).toEqual(
      [58, 58, 59, 59, 59].filter((m, i, all) => all.indexOf(m) === i),
    );
  });

  it("draws the partner's latency percentiles, slow while down and quick once recovered", async () => {
    const section = page.locator(`section[data-activity-target="${PARTNER_KEY}"]`);
    const p99 = await section.locator('[data-percentile="p99"] circle > title').allTextContents();
    const msAt = (title: string): number => Number(/p99 (\d+) ms/.exec(title)?.[1]);
    const during = p99.filter((t) => minuteOf(t) >= 21 && minuteOf(t) < 32).map(msAt);
    const after = p99.filter((t) => minuteOf(t) >= 40).map(msAt);
    expect(during.length).toBeGreaterThan(5);
    expect(Math.min(...during)).toBeGreaterThanOrEqual(2_000);
    expect(after.length).toBeGreaterThan(5);
    expect(Math.max(...after)).toBeLessThan(200);
    const legend = (await section.locator("p.legend").textContent()) ?? "";
    expect(legend).toMatch(/p50 \d+ ms/);
  });

  it("lists the partner first, the healthy target after it, and says what the charts read", async () => {
    const targets = await page
      .locator("section[data-activity-target]")
      .evaluateAll((sections) => sections.map((s) => s.getAttribute("data-activity-target")));
    expect(targets).toEqual([PARTNER_KEY, "lambda:billing"]);
    expect(await page.locator("p.bound").textContent()).toContain("Last 60 min");
    expect(
      await page
        .locator(`tr[data-target="${PARTNER_KEY}"] [data-state]`)
        .getAttribute("data-state"),
    ).toBe("closed");
    if (process.env.RICOCHET_CONSOLE_SCREENSHOT === "1") {
      await mkdir(dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
    }
  });

  it("shows a second partner's breaker opening without a reload", async () => {
    const second = "http:https://second.example:443";
    const row = page.locator(`tr[data-target="${second}"] [data-state]`);
    expect(await row.count()).toBe(0);
    await breakersOpenedFor(world.deps.targetState, second, "HTTP 502 Bad Gateway", {
      settings: DEFAULT_BREAKER_SETTINGS,
      startMs: NOW_MS - FAILURE_FLUSH_MS,
    });
    // No reload: htmx polls the breaker table every refreshSeconds (2 s here).
    await expect.poll(() => row.getAttribute("data-state"), { timeout: 10_000 }).toBe("open");
  });
});
