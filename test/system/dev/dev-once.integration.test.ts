import { describe, expect, it } from "vitest";
import { runScripted } from "./dev-process.js";

describe("ricochet dev --once --json", () => {
  it("plays the seeded demo to completion and accounts for every event", async () => {
    const { code, summary, stderr } = await runScripted(["--events", "20", "--seed", "3"]);
    expect(code, stderr.slice(-2000)).toBe(0);
    if (summary === undefined)
      throw new Error(`no summary printed; stderr: ${stderr.slice(-2000)}`);
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
