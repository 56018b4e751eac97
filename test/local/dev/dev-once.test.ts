import { describe, expect, it } from "vitest";
import type { DemoSummary } from "../../../lib/local/demo/demo-summary.js";
import { exited, spawnDev } from "./dev-process.js";

describe("ricochet dev --once --json", () => {
  it("plays the seeded demo to completion and accounts for every event", async () => {
    const child = spawnDev(["--once", "--json", "--events", "20", "--seed", "3"]);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await exited(child);
    expect(code, stderr.slice(-2000)).toBe(0);

    const lines = stdout.trim().split("\n");
    const summary = JSON.parse(lines[lines.length - 1] ?? "") as DemoSummary;
    expect(summary.submitted).toBe(20);
    expect(summary.lost).toBe(0);
    expect(summary.pending).toBe(0);
    expect(summary.delivered + summary.rejected + summary.deadLettered).toBe(summary.submitted);
    // The first six events show each behaviour once: one is permanently broken, one is redriven.
    expect(summary.rejected).toBeGreaterThan(0);
    expect(summary.redriven).toBeGreaterThan(0);
    expect(summary.duplicatesSuppressed).toBeGreaterThan(0);
    expect(summary.malformed).toBe(1);
  }, 180_000);
});
