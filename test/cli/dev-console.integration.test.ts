import { describe, expect, it } from "vitest";
import { consoleGet } from "../support/console-client.js";
import { exited, startDev } from "../system/dev/dev-process.js";

describe("npm start (ricochet dev) with its web console", () => {
  it("prints the console's address, whose page lists the demo's events as they are delivered", async () => {
    const { child, banner } = await startDev([]);
    try {
      const printed = /web console\s+(http:\/\/127\.0\.0\.1:\d+\/#token=\S+)/.exec(banner)?.[1];
      expect(printed).toBeDefined();
      const url = printed ?? "";
      // The fragment the page polls every 2 s: it fills as the demo's events are delivered.
      await expect
        .poll(
          async () => {
            const response = await consoleGet(url, "/events/list?status=delivered");
            return (await response.text()).match(/data-event-id=/g)?.length ?? 0;
          },
          { timeout: 60_000, interval: 1_000 },
        )
        .toBeGreaterThan(0);
      const page = await (await consoleGet(url, "/events")).text();
      expect(page).toContain('hx-trigger="every 2s"');
    } finally {
      child.kill("SIGINT");
      expect(await exited(child)).toBe(0);
    }
  }, 120_000);
});
