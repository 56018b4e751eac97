import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ENV } from "../../lib/contract/environment.js";
import type { EventRecord } from "../../lib/core/record.js";
import { EventStatus } from "../../lib/core/status.js";
import { resourceFlags } from "../cli/cli-world.js";
import { runCli } from "../cli/run-cli.js";
import { retryEverySecond } from "../support/factories.js";
import { useOrchestratorHarness } from "../support/orchestrator-harness.js";

/*
 * Issue #36, finding 4, end to end: with breakers on, events to a down origin open its breaker,
 * and an event to a healthy path of the same origin, held back before its first attempt, must be
 * known to `ricochet status` (deferred, why, when next) and cancellable with `ricochet cancel`.
 * Real pollers, the orchestrator, DynamoDB Local and fauxqs; the CLI as an operator runs it.
 */
const h = useOrchestratorHarness("deferred-record");

// Open for long enough that the held-back event is still waiting when the CLI reads it.
const BREAKER = {
  minimumCalls: 3,
  failureRateThreshold: 0.5,
  openMs: 60_000,
  maxOpenMs: 60_000,
  probeWaitMs: 30_000,
};
const everySecond = retryEverySecond();

describe("an event its target's open breaker holds back before its first attempt", () => {
  it("is shown deferred by `ricochet status` and withdrawn by `ricochet cancel`, never called", async () => {
    h.script((eventId) => ({ status: eventId.startsWith("cb-down-") ? 503 : 200 }));
    await h.startWorkers({ env: { [ENV.CIRCUIT_BREAKER]: JSON.stringify(BREAKER) } });
    const downIds = Array.from({ length: 4 }, (_, i) => `cb-down-${i}`);
    await h.submit(downIds.map((id) => h.envelope(id, everySecond)));
    await h.waitForBreakerOpen();

    await h.submit([h.envelope("cb-ok-00", everySecond)]);
    const resources = resourceFlags({ ...h.queues, tableName: h.tableName });
    const origin = `http:${new URL(h.baseUrl).origin}`;
    let shown: EventRecord | undefined;
    for (let waited = 0; shown?.deferral === undefined; waited += 250) {
      if (waited > 20_000) throw new Error("`ricochet status cb-ok-00` never showed a deferral");
      const status = await runCli(["status", "cb-ok-00", "--json", ...resources]);
      if (status.code === 0) shown = JSON.parse(status.stdout) as EventRecord;
      else await sleep(250);
    }

    expect(shown).toMatchObject({
      status: EventStatus.PENDING,
      attempts: 0,
      // One breaker per origin: the down paths opened it for the healthy one too.
      deferral: { cause: "breaker_open", targetKey: origin },
    });
    expect(Date.parse(shown?.nextAttemptAt ?? "")).toBeGreaterThan(Date.now());
    const text = await runCli(["status", "cb-ok-00", ...resources]);
    expect(text.stdout).toContain(`circuit breaker open for target ${origin}`);

    const cancel = await runCli([
      "cancel",
      "cb-ok-00",
      "--by",
      "ana",
      "--reason",
      "origin down",
      "--json",
      ...resources,
    ]);
    expect(cancel.code).toBe(0);
    expect(JSON.parse(cancel.stdout)).toMatchObject({
      cancelled: [{ eventId: "cb-ok-00", previousStatus: EventStatus.PENDING }],
    });
    const record = await h.store.get("cb-ok-00");
    expect(record?.status).toBe(EventStatus.CANCELLED);
    expect(record?.deferral).toBeUndefined();
    expect(h.receiver.callsFor("cb-ok-00")).toEqual([]);
  }, 90_000);
});
