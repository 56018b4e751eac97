import { describe, expect, it } from "vitest";
import { ENV } from "../../lib/contract/environment.js";
import { MetricName } from "../../lib/contract/metric-names.js";
import { EventStatus } from "../../lib/core/status.js";
import { naturalTargetKey } from "../../lib/core/target-key.js";
import { retryEverySecond } from "../support/factories.js";
import { useOrchestratorHarness } from "../support/orchestrator-harness.js";
import { type ReceivedCall, ScriptedReceiver } from "../support/scripted-receiver.js";

/*
 * Per-target limits end to end: two workers (each its own orchestrator and limiter, as two
 * Lambda instances), each polling both queues, DynamoDB Local and fauxqs.
 */
const h = useOrchestratorHarness("target-limits");

const everySecond = retryEverySecond(3);

/** The key of the harness's receiver, whose origin every `h.envelope` targets. */
const receiverKey = (): string => naturalTargetKey({ type: "http", url: h.baseUrl });

/** The most calls the receiver had in progress at one instant. */
const mostAtOnce = (calls: readonly ReceivedCall[]): number => {
  const edges = calls.flatMap((c) => [
    { at: c.startedAt, delta: 1 },
    { at: c.endedAt ?? Number.POSITIVE_INFINITY, delta: -1 },
  ]);
  // An end and a start in the same millisecond are not an overlap.
  edges.sort((x, y) => x.at - y.at || x.delta - y.delta);
  let now = 0;
  let most = 0;
  for (const edge of edges) {
    now += edge.delta;
    most = Math.max(most, now);
  }
  return most;
};

describe("per-target limits across instances", () => {
  it("never lets a target see more than maxConcurrentCalls at once across two pollers; the deferred spend no attempt and all get delivered", async () => {
    h.script(() => ({ status: 200, delayMs: 400 }));
    const targets = { overrides: { [receiverKey()]: { maxConcurrentCalls: 2 } } };
    await h.startWorkers({ count: 2, env: { [ENV.TARGETS]: JSON.stringify(targets) } });
    const ids = Array.from({ length: 12 }, (_, i) => `capped-${i}-${Date.now()}`);
    const deferredBefore = h.metrics.get(MetricName.DEFERRED);

    await h.submit(ids.map((id) => h.envelope(id, everySecond)));
    const records = [];
    for (const id of ids) records.push(await h.waitForStatus(id, EventStatus.DELIVERED, 60_000));

    const calls = ids.flatMap((id) => h.receiver.callsFor(id));
    console.info(
      `maxConcurrentCalls 2: ${calls.length} calls for ${ids.length} events, ` +
        `most at once ${mostAtOnce(calls)}, deferrals ${h.metrics.get(MetricName.DEFERRED) - deferredBefore}`,
    );
    expect(mostAtOnce(calls)).toBe(2);
    // Deferrals claimed nothing: each event was called once, and its one attempt is that call.
    for (const record of records) expect(record.attempts).toBe(1);
    expect(calls).toHaveLength(ids.length);
    expect(h.metrics.get(MetricName.DEFERRED) - deferredBefore).toBeGreaterThan(0);
  }, 90_000);

  it("starts no more than maxCallsPerSecond calls to a target in any aligned second across two pollers, while an unlimited target is not held back", async () => {
    h.script(() => ({ status: 200 }));
    const unlimited = new ScriptedReceiver(() => ({ status: 200 }));
    const unlimitedUrl = await unlimited.start();
    const targets = { overrides: { [receiverKey()]: { maxCallsPerSecond: 3 } } };
    await h.startWorkers({ count: 2, env: { [ENV.TARGETS]: JSON.stringify(targets) } });
    const stamp = Date.now();
    const rated = Array.from({ length: 15 }, (_, i) => `rated-${i}-${stamp}`);
    const free = Array.from({ length: 15 }, (_, i) => `free-${i}-${stamp}`);

    await h.submit([
      ...rated.map((id) => h.envelope(id, everySecond)),
      ...free.map((id) => ({
        ...h.envelope(id, everySecond),
        target: { type: "http" as const, url: `${unlimitedUrl}/${id}` },
      })),
    ]);
    const freeRecords = [];
    try {
      for (const id of free) freeRecords.push(await h.waitForStatus(id, EventStatus.DELIVERED));
    } finally {
      await unlimited.stop();
    }
    for (const id of rated) await h.waitForStatus(id, EventStatus.DELIVERED, 60_000);

    const starts = rated.flatMap((id) => h.receiver.callsFor(id)).map((c) => c.startedAt);
    const perSecond = new Map<number, number>();
    for (const t of starts)
      perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
    const spanSeconds = (Math.max(...starts) - Math.min(...starts)) / 1000;
    console.info(
      `maxCallsPerSecond 3: ${starts.length} calls over ${spanSeconds.toFixed(1)} s, ` +
        `most in an aligned second ${Math.max(...perSecond.values())}`,
    );
    // The limit holds for admissions (test/app/orchestrator/target-limits.integration.test.ts); a call starts a claim's write
    // later, which can carry a second's last admissions into the next: 2 × the limit at worst.
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(2 * 3);
    expect(spanSeconds).toBeGreaterThanOrEqual(15 / 3 - 2);
    expect(starts).toHaveLength(rated.length);
    expect(freeRecords.every((r) => r.attempts === 1)).toBe(true);
  }, 90_000);

  it("with adaptive limits learns a partner's pace from its 429s across two pollers: the throttled spend no attempt and all get delivered", async () => {
    // A token bucket of a sort: 4 calls in each aligned second, 429 with Retry-After: 1 above.
    const taken = new Map<number, number>();
    h.script(() => {
      const second = Math.floor(Date.now() / 1_000);
      const count = (taken.get(second) ?? 0) + 1;
      taken.set(second, count);
      return count <= 4 ? { status: 200 } : { status: 429, headers: { "retry-after": "1" } };
    });
    await h.startWorkers({ count: 2, env: { [ENV.ADAPTIVE_LIMITS]: "on" } });
    const ids = Array.from({ length: 40 }, (_, i) => `paced-${i}-${Date.now()}`);

    await h.submit(ids.map((id) => h.envelope(id, retryEverySecond(25))));
    const records = [];
    for (const id of ids) records.push(await h.waitForStatus(id, EventStatus.DELIVERED, 80_000));

    const calls = ids.flatMap((id) => h.receiver.callsFor(id));
    // Every event ended delivered, so each call but its last was answered 429.
    const refused = (call: ReceivedCall) => call !== h.receiver.callsFor(call.eventId).at(-1);
    const firstMs = Math.min(...calls.map((c) => c.startedAt));
    const late = calls.filter((c) => c.startedAt >= firstMs + 3_000);
    const spanS = (Math.max(...calls.map((c) => c.startedAt)) - firstMs) / 1_000;
    console.info(
      `adaptive limits, a partner taking 4 calls/s: ${calls.length} calls for ${ids.length} events, ` +
        `${calls.filter(refused).length} answered 429; after the first 3 s ${late.length} calls, ` +
        `${late.filter(refused).length} answered 429; the last call ${spanS.toFixed(1)} s after the first`,
    );
    // Every attempt is a call the partner answered; a deferral made none and charged none.
    for (const record of records)
      expect(record.attempts).toBe(h.receiver.callsFor(record.eventId).length);
    // Past the first burst (in flight before the first 429 came back) 429s are the exception:
    // without the limit each second's waiting events would all be called, and all but 4 refused.
    expect(late.filter(refused).length).toBeLessThan(late.length / 2);
  }, 120_000);
});
