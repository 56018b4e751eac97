import { describe, expect, it } from "vitest";
import { ENV } from "../../../lib/contract/environment.js";
import type { PolicyOverride } from "../../../lib/core/policy.js";
import { EventStatus } from "../../../lib/core/status.js";
import type { TargetReport } from "../../../lib/core/target-report.js";
import { resourceFlags } from "../../cli/cli-world.js";
import { runCli } from "../../cli/run-cli.js";
import { useOrchestratorHarness } from "../../support/orchestrator-harness.js";

/*
 * Issue #36, finding 8: with the breakers off (the default), a failing target is still listed by
 * `ricochet targets`, which says the breakers are off rather than "No target has failed yet".
 */
const h = useOrchestratorHarness("targets-off");

const twoQuickAttempts: PolicyOverride = {
  maxAttempts: 2,
  baseDelaySeconds: 1,
  multiplier: 1,
  maxDelaySeconds: 1,
  jitter: "none",
};

describe("ricochet targets with the circuit breakers off", () => {
  it("lists a failing target's failures and last error, and says the breakers are off", async () => {
    h.script(() => ({ status: 503 }));
    await h.startWorkers({ env: { [ENV.CIRCUIT_BREAKER]: "off" } });
    const ids = ["off-0", "off-1", "off-2"];
    await h.submit(ids.map((id) => h.envelope(id, twoQuickAttempts)));
    for (const id of ids) await h.waitForStatus(id, EventStatus.DEAD_LETTERED, 30_000);
    const resources = resourceFlags({ ...h.queues, tableName: h.tableName });
    const breakersOff = { env: { [ENV.CIRCUIT_BREAKER]: "off" } };

    const json = await runCli(["targets", "--json", ...resources], breakersOff);
    expect(json.code).toBe(0);
    const reports = JSON.parse(json.stdout) as TargetReport[];
    expect(reports).toHaveLength(1);
    const target = reports[0]?.target ?? "";
    expect(target).toBe(`http:${new URL(h.baseUrl).origin}`);
    expect(reports[0]?.lastError).toMatch(/503/);
    expect(reports[0]?.lastErrorAt).toBeDefined();

    const human = await runCli(["targets", ...resources], breakersOff);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Circuit breakers are off/);
    expect(human.stdout).toContain(target);
    expect(human.stdout).toMatch(/HTTP 503/);
    expect(human.stdout).not.toContain("No target has failed yet");
  }, 60_000);
});
