import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ENV } from "../../../lib/contract/environment.js";
import { MetricName } from "../../../lib/contract/metric-names.js";
import { EventStatus } from "../../../lib/core/status.js";
import { itWhereEmulated } from "../../support/emulator-gaps.js";
import { useOrchestratorHarness } from "../../support/orchestrator-harness.js";

/*
 * The seed scenario table of the orchestrator, end to end: real SQS (fauxqs) and DynamoDB
 * (DynamoDB Local) through the real SDK, the real event-source poller, a real HTTP receiver.
 * Timing assertions carry a stated tolerance: the poller's long poll and batching window add up
 * to about a second and a half on top of the intended delay.
 */
const LATE_TOLERANCE_MS = 2_500;
const EARLY_TOLERANCE_MS = 150;

const h = useOrchestratorHarness("orch");

const fast = { baseDelaySeconds: 1, multiplier: 1, maxDelaySeconds: 1, jitter: "none" as const };

const gapsBetweenCalls = (eventId: string): number[] => {
  const calls = h.receiver.callsFor(eventId);
  return calls
    .slice(1)
    .map((call, i) => call.startedAt - (calls[i]?.endedAt ?? calls[i]?.startedAt ?? 0));
};

describe("orchestrator on the emulators", () => {
  it("delivers on the first attempt with the event id as Idempotency-Key", async () => {
    const envelope = h.envelope("ok-first", {});
    h.script({ "ok-first": [200] });
    await h.startWorkers();
    await h.submit([envelope]);
    const record = await h.waitForStatus("ok-first", EventStatus.DELIVERED);

    expect(record.attempts).toBe(1);
    expect(record.history).toHaveLength(1);
    expect(record.history[0]?.outcome).toBe("success");
    expect(h.receiver.callsFor("ok-first").map((c) => c.idempotencyKey)).toEqual(["ok-first"]);
    expect(h.receiver.callsFor("ok-first").map((c) => c.attempt)).toEqual([1]);
  });

  it("retries three 429s, honouring Retry-After as a floor, then delivers", async () => {
    const id = "throttled-thrice";
    h.script({ [id]: [429, { status: 429, headers: { "Retry-After": "2" } }, 429, 200] });
    await h.startWorkers();
    await h.submit([h.envelope(id, fast)]);
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    expect(record.attempts).toBe(4);
    expect(record.history.map((e) => e.outcome)).toEqual([
      "retryable",
      "retryable",
      "retryable",
      "success",
    ]);
    expect(record.history.map((e) => e.delaySeconds)).toEqual([1, 2, 1, undefined]);
    const calls = h.receiver.callsFor(id);
    expect(new Set(calls.map((c) => c.idempotencyKey))).toEqual(new Set([id]));
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3, 4]);
    const intended = [1_000, 2_000, 1_000];
    gapsBetweenCalls(id).forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual((intended[i] ?? 0) - EARLY_TOLERANCE_MS);
      expect(gap).toBeLessThanOrEqual((intended[i] ?? 0) + LATE_TOLERANCE_MS);
    });
  });

  it("dead-letters an event whose target answers 503 until the budget is spent, exactly once", async () => {
    const id = "always-503";
    h.script({ [id]: [503, 503, 503, 503] });
    await h.startWorkers();
    await h.submit([h.envelope(id, { ...fast, maxAttempts: 3 })]);
    const record = await h.waitForStatus(id, EventStatus.DEAD_LETTERED);

    expect(record.attempts).toBe(3);
    expect(record.deadLetterReason).toBe("exhausted");
    expect(h.receiver.callsFor(id)).toHaveLength(3);
    const dead = (await h.deadLetters()).filter((m) => m.eventId === id);
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({
      reason: "exhausted",
      attempts: 3,
      lastOutcome: { statusCode: 503 },
    });
  });

  it("rejects a permanent 400 at once, without a retry", async () => {
    const id = "bad-request";
    h.script({ [id]: [400, 200] });
    await h.startWorkers();
    await h.submit([h.envelope(id, fast)]);
    const record = await h.waitForStatus(id, EventStatus.REJECTED);

    expect(record.attempts).toBe(1);
    expect(h.receiver.callsFor(id)).toHaveLength(1);
    const dead = (await h.deadLetters()).filter((m) => m.eventId === id);
    expect(dead.map((m) => m.reason)).toEqual(["rejected"]);
  });

  it("treats a timeout after the receiver accepted as uncertain and retries with the same key", async () => {
    const id = "slow-then-ok";
    h.script({ [id]: [{ status: 200, delayMs: 1_500 }, 200] });
    await h.startWorkers();
    await h.submit([h.envelope(id, fast, { timeoutMs: 500 })]);
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    expect(record.history.map((e) => e.outcome)).toEqual(["uncertain", "success"]);
    expect(record.history[0]?.errorCategory).toBe("timeout");
    expect(h.receiver.callsFor(id).map((c) => c.idempotencyKey)).toEqual([id, id]);
  });

  it("still delivers an event whose worker died after sending and before recording", async () => {
    const id = "worker-dies";
    h.script({ [id]: [200, 200] });
    const killed = h.killAfterFirstSend(id);
    await h.startWorkers({ count: 1, store: killed.store, visibilityTimeoutSeconds: 2 });
    await h.submit([h.envelope(id, fast, { timeoutMs: 500 })]);
    await h.waitFor(() => killed.died());
    // The survivor starts only now, so the doomed worker is certain to take the first attempt.
    await h.startWorkers({ count: 1, visibilityTimeoutSeconds: 2 });
    const record = await h.waitForStatus(id, EventStatus.DELIVERED, 30_000);
    killed.release();

    const keys = h.receiver.callsFor(id).map((c) => c.idempotencyKey);
    expect(keys.length).toBeGreaterThanOrEqual(1);
    expect(keys.length).toBeLessThanOrEqual(2);
    expect(new Set(keys)).toEqual(new Set([id]));
    expect(record.attempts).toBe(keys.length);
  });

  it("never lets two pollers call the target for one event at the same time, even with a slow store", async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `contended-${i}`);
    h.script(Object.fromEntries(ids.map((id) => [id, [{ status: 200, delayMs: 300 }]])));
    const slow = h.slowStore(250);
    await h.startWorkers({ count: 2, store: slow, batchSize: 2 });
    await h.startWorkers({ count: 2, store: slow, batchSize: 2 });
    // Every event is submitted three times so that copies race each other.
    const envelopes = ids.flatMap((id) => [
      h.envelope(id, fast),
      h.envelope(id, fast),
      h.envelope(id, fast),
    ]);
    await h.submit(envelopes);
    for (const id of ids) await h.waitForStatus(id, EventStatus.DELIVERED);
    await h.waitForQueueEmpty();

    expect(h.receiver.overlaps).toBe(0);
    for (const id of ids) expect(h.receiver.callsFor(id)).toHaveLength(1);
    expect(
      h.metrics.get(MetricName.DUPLICATE_SUPPRESSED) + h.metrics.get(MetricName.LEASE_CONFLICT),
    ).toBeGreaterThan(0);
  });

  it("hands back records it cannot finish before the function's deadline without spending an attempt", async () => {
    const ids = ["drain-a", "drain-b", "drain-c"];
    h.script(Object.fromEntries(ids.map((id) => [id, [200]])));
    await h.submit(ids.map((id) => h.envelope(id, fast)));
    const received = await h.receiveIngress(ids);
    const failed = await h.orchestrator().processBatch(received, () => 1_000);

    expect(failed.sort()).toEqual(received.map((m) => m.messageId).sort());
    for (const id of ids) expect(await h.store.get(id)).toBeUndefined();
    expect(h.receiver.callsFor("drain-a")).toHaveLength(0);
    // Released at once, so a normal worker picks them up and delivers them on attempt 1.
    await h.startWorkers();
    for (const id of ids)
      expect((await h.waitForStatus(id, EventStatus.DELIVERED)).attempts).toBe(1);
  });

  itWhereEmulated(
    "longPollWakesAtOnce",
    "reaches a delay longer than the hop length by hops that are not attempts",
    async () => {
      const id = "long-delay";
      h.script({ [id]: [503, 200] });
      await h.startWorkers({ hopSeconds: 1 });
      await h.submit([h.envelope(id, { baseDelaySeconds: 3, maxDelaySeconds: 3, jitter: "none" })]);
      const record = await h.waitForStatus(id, EventStatus.DELIVERED);

      expect(record.attempts).toBe(2);
      expect(h.metrics.get(MetricName.HOP)).toBeGreaterThanOrEqual(2);
      const [gap] = gapsBetweenCalls(id);
      expect(gap).toBeGreaterThanOrEqual(3_000 - EARLY_TOLERANCE_MS);
      expect(gap).toBeLessThanOrEqual(3_000 + 2 * LATE_TOLERANCE_MS);
    },
  );

  it("clamps a producer's maxAttempts 100 / base 0 override to the deployment's limits and records why", async () => {
    const id = "greedy-policy";
    const ceiling = 4;
    h.script({ [id]: [500] });
    await h.startWorkers({
      env: {
        [ENV.POLICY_LIMITS]: JSON.stringify({ maxAttempts: ceiling, minBaseDelaySeconds: 1 }),
        // The deployment's own policy must lie within its limits.
        [ENV.DEFAULT_POLICY]: JSON.stringify({ maxAttempts: 3 }),
      },
    });
    await h.submit([
      h.envelope(id, {
        maxAttempts: 100,
        baseDelaySeconds: 0,
        multiplier: 1,
        maxDelaySeconds: 0,
        jitter: "none",
      }),
    ]);
    const record = await h.waitForStatus(id, EventStatus.DEAD_LETTERED);
    // Unclamped, the same override ran 100 calls back to back; no more may follow the last.
    await sleep(1_500);

    expect(h.receiver.callsFor(id)).toHaveLength(ceiling);
    expect(record).toMatchObject({ attempts: ceiling, attemptBudget: ceiling });
    expect(record.policyAdjustments).toEqual([
      `maxAttempts 100 lowered to the deployment's ceiling ${ceiling}`,
      "baseDelaySeconds 0 raised to the deployment's floor 1",
      "maxDelaySeconds 0 raised to 1 to stay at or above the base delay",
    ]);
    for (const gap of gapsBetweenCalls(id)) {
      expect(gap).toBeGreaterThanOrEqual(1_000 - EARLY_TOLERANCE_MS);
    }
    expect(h.metrics.get(MetricName.POLICY_CLAMPED)).toBeGreaterThanOrEqual(1);
  });

  it("dead-letters a malformed message with its reason and records it when an id can be read", async () => {
    await h.startWorkers();
    await h.submitRaw(['{"eventId":"malformed-1","target":{"type":"ftp"}}', "not json at all"]);
    const record = await h.waitForStatus("malformed-1", EventStatus.REJECTED);
    await h.waitForQueueEmpty();

    expect(record.deadLetterReason).toBe("invalid_envelope");
    const dead = await h.deadLetters();
    const invalid = dead.filter((m) => m.reason === "invalid_envelope");
    expect(invalid.map((m) => m.eventId)).toEqual(
      expect.arrayContaining(["malformed-1", undefined]),
    );
    const withId = invalid.find((m) => m.eventId === "malformed-1");
    expect(withId?.problems?.map((p) => p.path)).toContain("target.type");
    expect(invalid.find((m) => m.eventId === undefined)?.problems?.[0]?.message).toMatch(
      /not valid JSON/,
    );
  });

  it("delivers an exhausted event after the receiver recovers and a redrive resets its budget", async () => {
    const id = "recovers-after-redrive";
    h.script({ [id]: [503, 503, 200] });
    await h.startWorkers();
    await h.submit([h.envelope(id, { ...fast, maxAttempts: 2 })]);
    await h.waitForStatus(id, EventStatus.DEAD_LETTERED);

    const report = await h.redrive({
      eventIds: [id],
      resetAttempts: true,
      by: "operator-test",
      why: "receiver fixed",
    });
    expect(report.moved.map((m) => m.eventId)).toEqual([id]);
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    expect(record.attempts).toBe(3);
    expect(record.attemptBudget).toBe(4);
    expect(record.redrives).toEqual([
      expect.objectContaining({
        by: "operator-test",
        reason: "receiver fixed",
        previousStatus: "dead_lettered",
        previousAttempts: 2,
      }),
    ]);
    expect(h.receiver.callsFor(id).map((c) => c.idempotencyKey)).toEqual([id, id, id]);
    expect((await h.deadLetters()).filter((m) => m.eventId === id)).toEqual([]);
  });

  it("brings 500 events with a receiver failing 30% of calls to a terminal state, losing none", async () => {
    const count = 500;
    h.script(h.seededFailures(7, 0.3));
    await h.startWorkers({ count: 2, batchSize: 10 });
    const ids = Array.from({ length: count }, (_, i) => `bulk-${i}`);
    await h.submit(
      ids.map((id) => h.envelope(id, { baseDelaySeconds: 1, maxDelaySeconds: 2, jitter: "full" })),
    );
    const lost = await h.waitUntilAllTerminal(ids, 120_000);
    console.log(`lost: ${lost.length}`);

    expect(lost).toEqual([]);
    const records = await Promise.all(ids.map((id) => h.store.get(id)));
    expect(records.every((r) => r !== undefined && r.attempts <= 8)).toBe(true);
    expect(h.receiver.overlaps).toBe(0);
  }, 180_000);
});
