import { describe, expect, it } from "vitest";
import type {
  TargetAdmission,
  TargetBreakers,
} from "../../../lib/app/orchestrator/target-breakers.js";
import {
  createTargetLimiter,
  type TargetLimiter,
} from "../../../lib/app/orchestrator/target-limits.js";
import { MetricName } from "../../../lib/contract/metric-names.js";
import { silentLog } from "../../../lib/core/observability.js";
import { MessageOrigin } from "../../../lib/core/ports.js";
import { seededRandom } from "../../../lib/core/random.js";
import { EventStatus } from "../../../lib/core/status.js";
import { CallEvidence } from "../../../lib/core/target-health.js";
import type { TargetLimits } from "../../../lib/core/target-settings.js";
import { createMemoryTargetLimitsStore } from "../../simulation/memory-target-limits-store.js";
import { memoryOrchestrator } from "../../support/memory-orchestrator.js";

/*
 * Where the limits sit in the orchestrator's admission: after the breaker, before the claim,
 * with the slot given back after the attempt whatever came of it. In memory, on a fixed clock.
 */
const NOW = Date.UTC(2030, 0, 1);
const TARGET = "http:https://partner.example:443";

const bodyOf = (eventId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    eventId,
    target: { type: "http", url: "https://partner.example/hook" },
    payload: { eventId },
    ...extra,
  });

/** A breaker that always answers `verdict`, and remembers the probes given back. */
const fixedBreaker = (admission: TargetAdmission) => {
  const abandoned: string[] = [];
  const breakers: TargetBreakers = {
    admit: async () => admission,
    recordCall: async () => {},
    abandonProbe: async (key) => {
      abandoned.push(key);
    },
    evidenceOf: () => CallEvidence.HEALTHY,
  };
  return { breakers, abandoned };
};

const world = (options: { limits: TargetLimits; breakers?: TargetBreakers }) => {
  const limitsStore = createMemoryTargetLimitsStore();
  const asked: string[] = [];
  const real = createTargetLimiter({
    store: limitsStore,
    limitsFor: () => options.limits,
    clock: () => NOW,
    random: seededRandom(1),
    log: silentLog,
    instanceId: "a",
  });
  const limits: TargetLimiter = {
    admit: (key, leaseMs) => {
      asked.push(key);
      return real.admit(key, leaseMs);
    },
  };
  const { orchestrator, store, calls, metrics, ingress, deadLetters } = memoryOrchestrator({
    nowMs: NOW,
    workerId: "worker-a",
    seed: 2,
    messageConcurrency: 1,
    breakers: options.breakers,
    limits,
  });
  /** Sends `body` as a producer would and has the orchestrator handle it. */
  const handle = async (body: string) => {
    ingress.send(body, { generation: 0 }, 0, { origin: MessageOrigin.PRODUCER });
    const [message] = ingress.receive(1, 60);
    if (message === undefined) throw new Error("nothing to receive");
    const verdict = await orchestrator.processMessage(message, () => 60_000);
    if (verdict.kind === "ack") ingress.delete(message.receiptHandle);
    return verdict;
  };
  return { handle, store, calls, asked, metrics, ingress, deadLetters, limitsStore };
};

describe("the orchestrator's admission with per-target limits", () => {
  it("gives the slot back after a delivered call and after a duplicate whose claim made no call", async () => {
    const w = world({ limits: { maxConcurrentCalls: 1 } });
    await w.handle(bodyOf("first"));
    await w.handle(bodyOf("first")); // a duplicate of a finished event: no call
    await w.handle(bodyOf("second"));

    expect(w.calls.map((c) => c.envelope.eventId)).toEqual(["first", "second"]);
    expect(w.metrics.get(MetricName.DEFERRED)).toBe(0);
  });

  it("defers an event over the limit without a claim, so no attempt is spent", async () => {
    const w = world({ limits: { maxConcurrentCalls: 1 } });
    // A call that never ends holds the only slot.
    await w.limitsStore.takeSlot({
      key: TARGET,
      slot: 0,
      holder: "elsewhere",
      nowMs: NOW,
      leaseUntilMs: NOW + 60_000,
    });

    expect(await w.handle(bodyOf("waits"))).toEqual({ kind: "ack" });

    expect(w.calls).toEqual([]);
    // Recorded from its first sight, waiting, with nothing spent (issue #36, finding 4).
    expect(await w.store.get("waits")).toMatchObject({
      status: EventStatus.PENDING,
      attempts: 0,
      deferral: { cause: "concurrency_limit", targetKey: TARGET },
    });
    const [resent] = w.ingress.contents();
    expect(resent?.schedule.notBeforeMs).toBeGreaterThanOrEqual(NOW + 1_000);
    expect(w.metrics.get(MetricName.DEFERRED)).toBe(1);
  });

  it("does not ask the limits for an event its open breaker defers", async () => {
    const { breakers } = fixedBreaker({ verdict: "defer", untilMs: NOW + 30_000 });
    const w = world({ limits: { maxCallsPerSecond: 1 }, breakers });
    await w.handle(bodyOf("held-by-breaker"));
    expect(w.asked).toEqual([]);
  });

  it("gives a half-open breaker's probe back when a limit defers the event", async () => {
    const { breakers, abandoned } = fixedBreaker({ verdict: "probe" });
    const w = world({ limits: { maxCallsPerSecond: 1 }, breakers });
    await w.handle(bodyOf("probe-1"));
    await w.handle(bodyOf("probe-2")); // the second call in the same second

    expect(w.calls.map((c) => c.envelope.eventId)).toEqual(["probe-1"]);
    expect(abandoned).toEqual([TARGET]);
  });

  it("does not defer an event past its deadline: the claim dead-letters it without a call", async () => {
    const w = world({ limits: { maxCallsPerSecond: 1 } });
    await w.handle(bodyOf("on-time"));
    const late = bodyOf("too-late", { deadline: new Date(NOW - 1_000).toISOString() });

    await w.handle(late);

    expect(w.calls.map((c) => c.envelope.eventId)).toEqual(["on-time"]);
    expect((await w.store.get("too-late"))?.status).toBe(EventStatus.DEAD_LETTERED);
    expect(w.ingress.contents()).toEqual([]);
  });
});
