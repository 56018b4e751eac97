import { describe, expect, it } from "vitest";
import { type CancelDeps, cancelEvents } from "../../lib/app/operator/cancel.js";
import { replayEvents } from "../../lib/app/operator/replay.js";
import { MetricName } from "../../lib/contract/metric-names.js";
import { AuditAction } from "../../lib/core/record.js";
import { EventStatus } from "../../lib/core/status.js";
import { ANA_CALLER, countingCallerIdentity } from "../support/counting-caller-identity.js";
import { anEventId } from "../support/factories.js";
import { useOrchestratorHarness } from "../support/orchestrator-harness.js";

const h = useOrchestratorHarness("cancel");
const CALLER = ANA_CALLER;

const cancelDeps = (): CancelDeps => ({
  store: h.store,
  clock: Date.now,
  retentionSeconds: h.config.recordRetentionDays * 86_400,
  callerIdentity: countingCallerIdentity().identity,
});

describe("cancel on the emulators", () => {
  it("cancels an event waiting for a retry: the in-flight copy is dropped on arrival, no further call", async () => {
    const eventId = anEventId("cancel");
    h.script({ [eventId]: [503, 200] });
    const dropped = h.metrics.get(MetricName.CANCELLED_DROPPED);
    await h.startWorkers();
    await h.submit([h.envelope(eventId, { maxAttempts: 3, baseDelaySeconds: 3, jitter: "none" })]);
    await h.waitForStatus(eventId, EventStatus.RETRY_SCHEDULED);

    const report = await cancelEvents(cancelDeps(), {
      eventIds: [eventId],
      by: "ops",
      reason: "customer withdrew the order",
    });
    expect(report).toEqual({
      dryRun: false,
      cancelled: [{ eventId, previousStatus: EventStatus.RETRY_SCHEDULED }],
      refused: [],
      failed: [],
    });

    // The retry's message was on its way (3 s delay): it arrives, and is deleted without a call.
    await h.waitFor(() => h.metrics.get(MetricName.CANCELLED_DROPPED) > dropped, 15_000);
    await h.waitForQueueEmpty();
    expect(h.receiver.callsFor(eventId)).toHaveLength(1);
    const record = await h.store.get(eventId);
    expect(record?.status).toBe(EventStatus.CANCELLED);
    expect(record?.audit).toEqual([
      expect.objectContaining({
        action: AuditAction.CANCELLED,
        by: "ops",
        reason: "customer withdrew the order",
        caller: CALLER,
        previousStatus: EventStatus.RETRY_SCHEDULED,
      }),
    ]);
  });

  it("cancels a scheduled event: its hopping copy is dropped at the next hop, never called", async () => {
    const eventId = anEventId("cancel-scheduled");
    const dueMs = Date.now() + 6_000;
    await h.startWorkers({ hopSeconds: 1 });
    const dropped = h.metrics.get(MetricName.CANCELLED_DROPPED);
    await h.submit([{ ...h.envelope(eventId, {}), notBefore: new Date(dueMs).toISOString() }]);
    await h.waitForStatus(eventId, EventStatus.SCHEDULED);

    const report = await cancelEvents(cancelDeps(), {
      eventIds: [eventId],
      by: "ops",
      reason: "campaign called off",
    });
    expect(report.cancelled).toEqual([{ eventId, previousStatus: EventStatus.SCHEDULED }]);

    // Dropped by a hop well before it falls due, not by the claim when it does.
    await h.waitFor(() => h.metrics.get(MetricName.CANCELLED_DROPPED) > dropped, 15_000);
    expect(Date.now()).toBeLessThan(dueMs);
    await h.waitForQueueEmpty();
    expect(h.receiver.callsFor(eventId)).toHaveLength(0);
    const record = await h.store.get(eventId);
    expect(record).toMatchObject({ status: EventStatus.CANCELLED, attempts: 0 });
    expect(record?.audit).toEqual([
      expect.objectContaining({
        action: AuditAction.CANCELLED,
        previousStatus: EventStatus.SCHEDULED,
      }),
    ]);
  });

  it("counts a different envelope under a cancelled event's id as a conflicting resubmission, not as the cancel's copy, and never calls it", async () => {
    const eventId = anEventId("cancel-conflict");
    const dueMs = Date.now() + 6_000;
    await h.startWorkers({ hopSeconds: 1 });
    await h.submit([{ ...h.envelope(eventId, {}), notBefore: new Date(dueMs).toISOString() }]);
    await h.waitForStatus(eventId, EventStatus.SCHEDULED);
    await cancelEvents(cancelDeps(), { eventIds: [eventId], by: "ops" });
    const dropped = h.metrics.get(MetricName.CANCELLED_DROPPED);
    await h.waitFor(() => h.metrics.get(MetricName.CANCELLED_DROPPED) > dropped, 15_000);

    // Another envelope under the same id, ahead of its own schedule. (One deferred by a breaker
    // or a limit before the cancel meets the record at a hop instead: the simulation, seed 1007
    // with --breakers --limits, covers that path.)
    const conflicts = h.metrics.get(MetricName.CONFLICTING_RESUBMISSION);
    const droppedBefore = h.metrics.get(MetricName.CANCELLED_DROPPED);
    await h.submit([
      {
        ...h.envelope(eventId, {}),
        payload: { other: "body" },
        notBefore: new Date(Date.now() + 6_000).toISOString(),
      },
    ]);
    await h.waitFor(() => h.metrics.get(MetricName.CONFLICTING_RESUBMISSION) > conflicts, 15_000);
    await h.waitForQueueEmpty();
    expect(h.metrics.get(MetricName.CANCELLED_DROPPED)).toBe(droppedBefore);
    expect(h.receiver.callsFor(eventId)).toHaveLength(0);
    expect(await h.store.get(eventId)).toMatchObject({
      status: EventStatus.CANCELLED,
      attempts: 0,
    });
  });

  it("refuses to cancel a delivered event, says why, and leaves its record alone", async () => {
    const eventId = anEventId("cancel-delivered");
    await h.startWorkers();
    await h.submit([h.envelope(eventId, {})]);
    const before = await h.waitForStatus(eventId, EventStatus.DELIVERED);

    const report = await cancelEvents(cancelDeps(), { eventIds: [eventId], by: "ops" });
    expect(report.cancelled).toEqual([]);
    expect(report.refused).toEqual([
      { eventId, reason: expect.stringContaining("already delivered") },
    ]);
    expect(await h.store.get(eventId)).toEqual(before);
  });

  it("changes nothing on a dry run but reports what a real run would cancel", async () => {
    const eventId = anEventId("cancel-dry");
    h.script({ [eventId]: [503, 200] });
    await h.startWorkers();
    await h.submit([h.envelope(eventId, { maxAttempts: 2, baseDelaySeconds: 2, jitter: "none" })]);
    await h.waitForStatus(eventId, EventStatus.RETRY_SCHEDULED);
    const report = await cancelEvents(cancelDeps(), {
      eventIds: [eventId],
      by: "ops",
      dryRun: true,
    });
    expect(report.cancelled).toEqual([{ eventId, previousStatus: EventStatus.RETRY_SCHEDULED }]);
    await h.waitForStatus(eventId, EventStatus.DELIVERED);
  });
});

describe("replay on the emulators", () => {
  it("sends a delivered event once more, with the same Idempotency-Key and a Ricochet-Replay header, and audits it", async () => {
    const eventId = anEventId("replay");
    const envelope = h.envelope(eventId, { maxAttempts: 2 });
    await h.startWorkers();
    await h.submit([envelope]);
    const delivered = await h.waitForStatus(eventId, EventStatus.DELIVERED);

    const report = await replayEvents(h.replayDeps(), {
      eventIds: [eventId],
      envelopes: [envelope],
      by: "ops",
      reason: "receiver restored a backup",
    });
    expect(report.refused).toEqual([]);
    expect(report.failed).toEqual([]);
    expect(report.replayed).toEqual([
      {
        eventId,
        generation: delivered.generation + 1,
        // A fresh budget: the envelope's maxAttempts on top of the attempts made.
        attemptBudget: delivered.attempts + 2,
        replay: 1,
      },
    ]);

    await h.waitFor(() => h.receiver.callsFor(eventId).length === 2);
    const record = await h.waitForStatus(eventId, EventStatus.DELIVERED);
    const [original, replayed] = h.receiver.callsFor(eventId);
    expect(original?.headers["ricochet-replay"]).toBeUndefined();
    expect(replayed?.idempotencyKey).toBe(eventId);
    expect(replayed?.headers["ricochet-replay"]).toBe("1");
    expect(replayed?.body).toBe(original?.body);
    expect(record).toMatchObject({ replays: 1, generation: delivered.generation + 1 });
    expect(record.audit).toEqual([
      expect.objectContaining({
        action: AuditAction.REPLAYED,
        by: "ops",
        reason: "receiver restored a backup",
        caller: CALLER,
        previousStatus: EventStatus.DELIVERED,
      }),
    ]);
    await h.waitForQueueEmpty();
    expect(h.receiver.callsFor(eventId)).toHaveLength(2);
  });

  it("refuses an envelope that is not the one the event was accepted with", async () => {
    const eventId = anEventId("replay-other");
    const envelope = h.envelope(eventId, {});
    await h.startWorkers();
    await h.submit([envelope]);
    await h.waitForStatus(eventId, EventStatus.DELIVERED);
    const report = await replayEvents(h.replayDeps(), {
      eventIds: [eventId],
      envelopes: [{ ...envelope, payload: { tampered: true } }],
      by: "ops",
    });
    expect(report.replayed).toEqual([]);
    expect(report.refused).toEqual([
      { eventId, reason: expect.stringContaining("not the envelope") },
    ]);
  });
});
