import { describe, expect, it } from "vitest";
import { MetricName } from "../../lib/contract/metric-names.js";
import { EventStatus } from "../../lib/core/status.js";
import { useOrchestratorHarness } from "../support/orchestrator-harness.js";

/*
 * An event scheduled ahead (envelope `notBefore`), end to end: the real poller and queues, 1 s
 * hops standing in for the deployed 900 s ones, so a wait of 4 s takes several hops.
 */
const h = useOrchestratorHarness("scheduled");

describe("a scheduled event", () => {
  it("is shown scheduled with its due time, hops until due and is delivered at or after it on its first attempt", async () => {
    const id = `scheduled-${Date.now()}`;
    const dueMs = Date.now() + 4_000;
    const notBefore = new Date(dueMs).toISOString();
    await h.startWorkers({ hopSeconds: 1 });
    const hopsBefore = h.metrics.get(MetricName.HOP);

    await h.submit([{ ...h.envelope(id, {}), notBefore }]);
    const waiting = await h.waitForStatus(id, EventStatus.SCHEDULED);
    expect(h.receiver.callsFor(id)).toHaveLength(0);
    expect(waiting.attempts).toBe(0);
    expect(Date.parse(waiting.nextAttemptAt ?? "")).toBe(dueMs);

    const record = await h.waitForStatus(id, EventStatus.DELIVERED);
    const calls = h.receiver.callsFor(id);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.startedAt).toBeGreaterThanOrEqual(dueMs);
    expect(record.attempts).toBe(1);
    expect(h.metrics.get(MetricName.HOP) - hopsBefore).toBeGreaterThanOrEqual(2);
  });

  it("refuses a resubmission of its id without notBefore as a conflict: no early call, still delivered when due", async () => {
    const id = `scheduled-early-${Date.now()}`;
    const dueMs = Date.now() + 4_000;
    const scheduled = { ...h.envelope(id, {}), notBefore: new Date(dueMs).toISOString() };
    await h.startWorkers({ hopSeconds: 1 });
    const conflictsBefore = h.metrics.get(MetricName.CONFLICTING_RESUBMISSION);

    await h.submit([scheduled]);
    await h.waitForStatus(id, EventStatus.SCHEDULED);
    await h.submit([h.envelope(id, {})]);
    await h.waitFor(
      () => h.metrics.get(MetricName.CONFLICTING_RESUBMISSION) > conflictsBefore,
      10_000,
    );
    expect(h.receiver.callsFor(id)).toHaveLength(0);
    expect((await h.store.get(id))?.status).toBe(EventStatus.SCHEDULED);

    await h.waitForStatus(id, EventStatus.DELIVERED);
    const calls = h.receiver.callsFor(id);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.startedAt).toBeGreaterThanOrEqual(dueMs);
  });
});
