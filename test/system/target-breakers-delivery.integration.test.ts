import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ENV } from "../../lib/contract/environment.js";
import { EventStatus } from "../../lib/core/status.js";
import { retryEverySecond } from "../support/factories.js";
import { useOrchestratorHarness } from "../support/orchestrator-harness.js";

/*
 * The targets' circuit breakers end to end: real pollers, the orchestrator, DynamoDB Local and
 * fauxqs, with a small breaker so the test runs in seconds.
 */
const h = useOrchestratorHarness("circuit-breaker");

const BREAKER = {
  minimumCalls: 3,
  failureRateThreshold: 0.5,
  openMs: 2_000,
  maxOpenMs: 2_000,
  probeWaitMs: 1_000,
};
const everySecond = retryEverySecond();

describe("circuit breakers per target", () => {
  it("stops calling a down target, spends no attempt on deferrals and delivers its events once it recovers, while another target's go through", async () => {
    let down = true;
    h.script((eventId) => ({ status: down && eventId.startsWith("down-") ? 503 : 200 }));
    await h.startWorkers({ env: { [ENV.CIRCUIT_BREAKER]: JSON.stringify(BREAKER) } });
    const downIds = Array.from({ length: 6 }, (_, i) => `down-${i}`);
    const healthyIds = Array.from({ length: 3 }, (_, i) => `healthy-${i}`);
    await h.submit([
      ...downIds.map((id) => h.envelope(id, everySecond, { group: "partner-down" })),
      ...healthyIds.map((id) => h.envelope(id, everySecond, { group: "partner-up" })),
    ]);

    for (const id of healthyIds) await h.waitForStatus(id, EventStatus.DELIVERED, 15_000);
    await sleep(8_000);
    // Without breakers each down event is called about once a second: some 50 calls by now.
    const callsWhileDown = downIds.flatMap((id) => h.receiver.callsFor(id)).length;
    down = false;
    const records = [];
    for (const id of downIds)
      records.push(await h.waitForStatus(id, EventStatus.DELIVERED, 30_000));

    expect(callsWhileDown).toBeLessThan(downIds.length * 3);
    for (const record of records) {
      // Deferrals claimed nothing: every attempt on the record is a call the receiver saw.
      expect(record.attempts).toBe(h.receiver.callsFor(record.eventId).length);
    }
    expect((await h.deadLetters()).filter((m) => downIds.includes(m.eventId ?? ""))).toEqual([]);
  }, 90_000);

  it("never defers an event past its deadline: a breaker open longer than the deadline dead-letters it as `deadline` with no attempt spent on the wait", async () => {
    h.script((eventId) => ({ status: eventId.startsWith("trip-") ? 503 : 200 }));
    const longOpen = { ...BREAKER, openMs: 60_000, maxOpenMs: 60_000 };
    await h.startWorkers({ env: { [ENV.CIRCUIT_BREAKER]: JSON.stringify(longOpen) } });
    const tripIds = Array.from({ length: 4 }, (_, i) => `trip-${i}`);
    await h.submit(tripIds.map((id) => h.envelope(id, everySecond, { group: "partner-late" })));
    await h.waitForBreakerOpen();

    const deadlineMs = Date.now() + 4_000;
    await h.submit([
      {
        ...h.envelope("late-0", everySecond, { group: "partner-late" }),
        deadline: new Date(deadlineMs).toISOString(),
      },
    ]);
    const record = await h.waitForStatus("late-0", EventStatus.DEAD_LETTERED, 20_000);

    expect(h.receiver.callsFor("late-0")).toEqual([]);
    // The wait for the breaker claimed nothing: only the claim at the deadline counts.
    expect(record.attempts).toBeLessThanOrEqual(1);
    const copy = (await h.deadLetters()).find((m) => m.eventId === "late-0");
    expect(copy?.reason).toBe("deadline");
    // Deferred to the deadline, not to the breaker's reopen time a minute away.
    expect(Date.parse(copy?.deadLetteredAt ?? "")).toBeLessThan(deadlineMs + 5_000);
  }, 60_000);
});
