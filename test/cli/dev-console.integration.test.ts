import { describe, expect, it } from "vitest";
import { tokenCookieName } from "../../lib/console/console-app.js";
import { exited, startDev } from "../system/dev/dev-process.js";

describe("npm start (ricochet dev) with its web console", () => {
  it("prints the console's address, whose page lists the demo's events as they are delivered", async () => {
    const { child, banner } = await startDev([]);
    try {
      const printed = /web console\s+(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(banner)?.[1];
      expect(printed).toBeDefined();
      const url = new URL(printed ?? "");
      const token = url.searchParams.get("token") ?? "";
      const cookie = `${tokenCookieName(Number(url.port))}=${token}`;
      // The fragment the page polls every 2 s: it fills as the demo's events are delivered.
      const fragment = `${url.origin}/events/list?status=delivered`;
      await expect
        .poll(
          async () => {
            const response = await fetch(fragment, { headers: { cookie } });
            return (await response.text()).match(/data-event-id=/g)?.length ?? 0;
          },
          { timeout: 60_000, interval: 1_000 },
        )
        .toBeGreaterThan(0);
      const page = await (await fetch(`${url.origin}/events`, { headers: { cookie } })).text();
      expect(page).toContain('hx-trigger="every 2s"');
    } finally {
      child.kill("SIGINT");
      expect(await exited(child)).toBe(0);
    }
  }, 120_000);
});
