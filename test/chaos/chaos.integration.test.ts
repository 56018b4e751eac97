import { describe, expect, it } from "vitest";
import { localAws } from "../support/local-aws.js";
import { runChaos } from "./run-chaos.js";

describe("chaos on the emulators", () => {
  it("loses nothing and breaks no guarantee with a faulty receiver, faulty AWS calls, a killed worker and a hostile producer", async () => {
    const report = await runChaos({
      seed: 7,
      events: 40,
      workers: 2,
      kills: 1,
      faultRate: 0.05,
      timeoutSeconds: 90,
      // Twice as short as a CLI run (a 3 s function, 18 s visibility timeout), same ratios.
      timeScale: 20,
      local: localAws(),
    });
    expect(report.violations).toEqual([]);
    expect(report).toMatchObject({
      lost: 0,
      unfinished: 0,
      overlappingAttempts: 0,
      maxAttemptsExceeded: 0,
      foreignPayloadCalls: 0,
      quiescent: true,
      workerKills: 1,
      bulky: 1,
    });
    expect(report.delivered + report.rejected + report.deadLettered).toBe(40 + report.bulky);
    // A run that injected nothing would prove nothing.
    expect(Object.values(report.faultsInjected.aws).reduce((a, b) => a + b)).toBeGreaterThan(0);
    expect(report.faultsInjected.aws.resultWriteAfterSend).toBeGreaterThan(0);
    expect(report.faultsInjected.receiver.reset).toBeGreaterThan(0);
    expect(report.hostile.forged).toBeGreaterThan(0);
    expect(report.hostile.conflicting).toBeGreaterThan(0);
    expect(report.deadLettered).toBeGreaterThan(0);
  }, 150_000);
});
