import { setTimeout as sleep } from "node:timers/promises";
import type { MessageAttributeValue } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { createDynamoTargetStateStore } from "../../../lib/adapters/dynamo-target-state-store.js";
import { SCHEDULE_ATTRIBUTE } from "../../../lib/adapters/message-schedule.js";
import { createRicochetClient } from "../../../lib/client/producer-client.js";
import { ENV } from "../../../lib/contract/environment.js";
import { MetricName } from "../../../lib/contract/metric-names.js";
import { FAILURE_FLUSH_MS } from "../../../lib/core/breaker-cache.js";
import type { Envelope } from "../../../lib/core/envelope.js";
import { EventStatus } from "../../../lib/core/status.js";
import { naturalTargetKey } from "../../../lib/core/target-key.js";
import { anEventId } from "../../support/factories.js";
import { useOrchestratorHarness } from "../../support/orchestrator-harness.js";
import { ScriptedReceiver } from "../../support/scripted-receiver.js";

/*
 * A producer with nothing but send rights on the ingress queue, trying to speak for Ricochet:
 * forged scheduling attributes, another envelope under a live event's id, a corrected
 * resubmission after an invalid one, a group that is not its own. Real emulators, real poller, real receiver.
 */

const h = useOrchestratorHarness("hostile-producer");

const retryIn = (seconds: number) => ({
  baseDelaySeconds: seconds,
  multiplier: 1,
  maxDelaySeconds: seconds,
  jitter: "none" as const,
});

const generation = (value: number): Record<string, MessageAttributeValue> => ({
  [SCHEDULE_ATTRIBUTE.GENERATION]: { DataType: "Number", StringValue: String(value) },
});

/** The same event id, another target and payload: what a forger wants called instead. */
const forgedCopyOf = (envelope: Envelope): Envelope => ({
  ...envelope,
  target: { type: "http", url: `${h.baseUrl}/${envelope.eventId}?forged=1` },
  payload: { forged: true },
});

const forgedCalls = (eventId: string) =>
  h.receiver.callsFor(eventId).filter((call) => call.body.includes('"forged"'));

describe("a producer cannot speak for Ricochet", () => {
  it("never calls a forged later generation sent while the real event waits for its retry", async () => {
    const id = "forged-generation";
    h.script({ [id]: [503, 200] });
    const real = h.envelope(id, retryIn(3));
    await h.startWorkers();
    await h.submit([real]);
    await h.waitForStatus(id, EventStatus.RETRY_SCHEDULED);
    for (const forged of [1, 2, 3]) {
      await h.submitRaw([JSON.stringify(forgedCopyOf(real))], generation(forged));
    }
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    expect(forgedCalls(id)).toEqual([]);
    expect(h.receiver.callsFor(id)).toHaveLength(2);
    expect(record.attempts).toBe(2);
    const refused = (await h.deadLetters()).filter(
      (m) => m.eventId === id && m.reason === "invalid_envelope",
    );
    expect(refused).toHaveLength(3);
    expect(refused[0]?.problems?.map((p) => p.path)).toEqual([
      `messageAttributes.${SCHEDULE_ATTRIBUTE.GENERATION}`,
    ]);
    expect(h.metrics.get(MetricName.FORGED_ATTRIBUTES)).toBeGreaterThanOrEqual(3);
  });

  it("refuses a forged far-future notBefore with a reason instead of hopping it unseen", async () => {
    const id = "forged-not-before";
    await h.startWorkers();
    await h.submitRaw([JSON.stringify(h.envelope(id, {}))], {
      [SCHEDULE_ATTRIBUTE.NOT_BEFORE]: {
        DataType: "Number",
        StringValue: String(Date.now() + 365 * 86_400_000),
      },
    });
    const record = await h.waitForStatus(id, EventStatus.REJECTED);
    await h.waitForQueueEmpty();

    expect(record.deadLetterReason).toBe("invalid_envelope");
    expect(record.lastOutcome?.message).toContain(SCHEDULE_ATTRIBUTE.NOT_BEFORE);
    expect(h.metrics.get(MetricName.HOP)).toBe(0);
  });

  it("never replays a forged copy of a dead-lettered event, even through a redrive", async () => {
    const id = "forged-after-dead-letter";
    h.script({ [id]: [503, 200] });
    const real = h.envelope(id, { ...retryIn(1), maxAttempts: 1 });
    await h.startWorkers();
    await h.submit([real]);
    await h.waitForStatus(id, EventStatus.DEAD_LETTERED);
    await h.submitRaw([JSON.stringify(forgedCopyOf(real))], generation(1));
    await h.waitForQueueEmpty();

    const report = await h.redrive({ eventIds: [id], extraAttempts: 1, by: "operator-test" });
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    expect(report.moved).toHaveLength(1);
    expect(forgedCalls(id)).toEqual([]);
    expect(record.attempts).toBe(2);
  });
});

describe("one event id, one envelope", () => {
  it("counts and never calls a conflicting resubmission while the first is pending", async () => {
    const id = "conflict-pending";
    h.script({ [id]: [503, 200] });
    const first = h.envelope(id, retryIn(2));
    await h.startWorkers();
    await h.submit([first]);
    await h.waitForStatus(id, EventStatus.RETRY_SCHEDULED);
    await h.submit([{ ...first, payload: { another: "payload" } }]);
    await h.waitFor(() => h.metrics.get(MetricName.CONFLICTING_RESUBMISSION) >= 1);
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    expect(h.receiver.callsFor(id).map((c) => JSON.parse(c.body))).toEqual([
      first.payload,
      first.payload,
    ]);
    expect(record.conflicts?.count).toBe(1);
    expect(record.conflicts?.lastDigest).not.toBe(record.envelopeDigest);
  });

  it("counts a conflicting resubmission after the event finished, and ignores an exact duplicate", async () => {
    const id = "conflict-finished";
    const first = h.envelope(id, {});
    await h.startWorkers();
    await h.submit([first]);
    await h.waitForStatus(id, EventStatus.DELIVERED);
    // The same event re-serialised (keys in another order) is a duplicate, not a conflict.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(first).reverse()));
    await h.submitRaw([reordered]);
    await h.submit([{ ...first, target: { type: "http", url: `${h.baseUrl}/elsewhere` } }]);
    await h.waitForQueueEmpty();
    const record = await h.store.get(id);

    expect(record?.conflicts?.count).toBe(1);
    expect(h.receiver.callsFor(id)).toHaveLength(1);
  });
});

describe("an invalid envelope does not claim its event id", () => {
  it("processes the corrected resubmission and keeps the invalid attempt in the history", async () => {
    const id = "corrected-later";
    const invalid = { ...h.envelope(id, {}), policy: { maxDelaySeconds: 1e9 } };
    await h.startWorkers();
    await h.submitRaw([JSON.stringify(invalid)]);
    await h.waitForStatus(id, EventStatus.REJECTED);
    await h.submit([h.envelope(id, {})]);
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    expect(h.receiver.callsFor(id)).toHaveLength(1);
    expect(record.attempts).toBe(1);
    expect(record.attemptBudget).toBeGreaterThan(0);
    expect(record.deadLetterReason).toBeUndefined();
    expect(record.history.map((e) => e.outcome)).toEqual(["permanent", "success"]);
    expect(record.history[0]?.message).toMatch(/invalid envelope: .*maxDelaySeconds/);
  });
});

describe("a producer cannot choose another tenant's breaker", () => {
  it("keeps its failures off a declared group it names, so that group's events are still called", async () => {
    const stranger = new ScriptedReceiver(() => ({ status: 503 }));
    const strangerUrl = await stranger.start();
    try {
      const acmeKey = naturalTargetKey({ type: "http", url: h.baseUrl });
      await h.startWorkers({
        env: {
          [ENV.CIRCUIT_BREAKER]: JSON.stringify({ minimumCalls: 2, openMs: 60_000 }),
          [ENV.TARGETS]: JSON.stringify({ groups: { acme: [acmeKey] } }),
        },
      });
      const once = { maxAttempts: 1 };
      const hostile = ["claims-acme-0", "claims-acme-1", "claims-acme-2", "claims-acme-3"].map(
        (id) => ({
          ...h.envelope(id, once),
          target: { type: "http" as const, url: `${strangerUrl}/${id}`, group: "acme" },
        }),
      );
      // One first, and the rest a flush interval later: a worker new to a target holds its
      // failures that long, so the stranger's breaker opens on the later ones' write.
      const [first, ...rest] = hostile;
      await h.submit(first === undefined ? [] : [first]);
      await h.waitForStatus("claims-acme-0", EventStatus.DEAD_LETTERED);
      await sleep(FAILURE_FLUSH_MS);
      await h.submit(rest);
      for (const { eventId } of rest) await h.waitForStatus(eventId, EventStatus.DEAD_LETTERED);
      await h.submit([h.envelope("acme-order", once)]);
      const delivered = await h.waitForStatus("acme-order", EventStatus.DELIVERED);

      expect(h.receiver.callsFor("acme-order")).toHaveLength(1);
      expect(delivered.targetGroup).toBe("acme");
      expect((await h.store.get("claims-acme-1"))?.targetGroup).toBeUndefined();
      const states = await createDynamoTargetStateStore({
        doc: h.clients.documents,
        tableName: h.tableName,
      }).list(10);
      const strangerKey = naturalTargetKey({ type: "http", url: strangerUrl });
      expect(states.find((s) => s.key === strangerKey)?.breaker.state).toBe("open");
      expect(states.find((s) => s.key === "group:acme")?.breaker.state ?? "closed").toBe("closed");
    } finally {
      await stranger.stop();
    }
  });
});

describe("a producer's client sends only what it validated", () => {
  it("delivers every event it reports accepted, and reports the rest with a reason", async () => {
    const client = createRicochetClient({ queueUrl: h.queues.ingressQueueUrl, sqs: h.clients.sqs });
    const ids = ["client-ok", "client-tojson", "client-bigint", "client-getter"].map((id) =>
      anEventId(id),
    );
    const [ok, vanishing, big, shifting] = ids.map((id) => h.envelope(id, {})) as Envelope[];
    let reads = 0;
    const deep = JSON.parse(`${"[".repeat(70)}${"]".repeat(70)}`) as unknown;
    const report = await client.submitBatch([
      ok,
      { ...vanishing, payload: { toJSON: () => undefined } },
      { ...big, payload: { amount: 2n ** 70n } },
      {
        ...shifting,
        payload: {
          get items(): unknown {
            reads += 1;
            return reads === 1 ? [1] : deep;
          },
        },
      },
    ]);
    expect(report.rejected.map((r) => [r.index, r.problems?.[0]?.path])).toEqual([
      [1, "payload"],
      [2, ""],
    ]);
    const accepted = report.accepted.map((a) => a.eventId);
    expect(accepted).toEqual([ok?.eventId, shifting?.eventId]);
    await h.startWorkers();
    expect(await h.waitUntilAllTerminal(accepted, 20_000)).toEqual([]);
    for (const eventId of accepted) {
      expect((await h.store.get(eventId))?.status).toBe(EventStatus.DELIVERED);
    }
    const invalid = (await h.deadLetters()).filter((m) => accepted.includes(m.eventId ?? ""));
    expect(invalid).toEqual([]);
  });
});

// A world of their own: earlier tests' calls, metrics and breaker state on the shared receiver's
// origin would otherwise be counted here.
describe("a producer and a shared target's identity", () => {
  const h = useOrchestratorHarness("hostile-target-identity");

  describe("a producer cannot escape a target's limits by spelling its URL", () => {
    it("holds maxConcurrentCalls across 127.0.0.1, localhost, [::ffff:127.0.0.1] and 2130706433", async () => {
      const port = new URL(h.baseUrl).port;
      const key = naturalTargetKey({ type: "http", url: h.baseUrl });
      h.script(() => ({ status: 200, delayMs: 300 }));
      await h.startWorkers({
        env: { [ENV.TARGETS]: JSON.stringify({ overrides: { [key]: { maxConcurrentCalls: 1 } } }) },
      });
      const spellings = ["127.0.0.1", "LocalHost", "[::ffff:127.0.0.1]", "2130706433"];
      const events = spellings.flatMap((host, i) =>
        [0, 1].map((n) => ({
          ...h.envelope(`spelled-${i}-${n}`, { maxAttempts: 1 }),
          target: { type: "http" as const, url: `http://${host}:${port}/spelled-${i}-${n}` },
        })),
      );
      await h.submit(events);
      for (const { eventId } of events) await h.waitForStatus(eventId, EventStatus.DELIVERED);

      expect(h.receiver.peakInFlight).toBe(1);
      expect(h.receiver.calls).toHaveLength(8);
    }, 90_000);
  });

  describe("a producer cannot open a shared target's breaker for everyone", () => {
    it("keeps its own too-short timeouts off the breaker of a healthy, slow target", async () => {
      // Metrics count over the whole world; the limit test before this one defers on purpose.
      const deferredBefore = h.metrics.get(MetricName.DEFERRED) ?? 0;
      h.script(() => ({ status: 200, delayMs: 300 }));
      await h.startWorkers({
        env: { [ENV.CIRCUIT_BREAKER]: JSON.stringify({ minimumCalls: 10, openMs: 60_000 }) },
      });
      const impatient = Array.from({ length: 14 }, (_, i) =>
        h.envelope(`impatient-${i}`, { maxAttempts: 1 }, { timeoutMs: 100 }),
      );
      await h.submit(impatient);
      for (const { eventId } of impatient)
        await h.waitForStatus(eventId, EventStatus.DEAD_LETTERED);
      const patient = Array.from({ length: 5 }, (_, i) =>
        h.envelope(`patient-${i}`, { maxAttempts: 1 }),
      );
      await h.submit(patient);
      for (const { eventId } of patient) await h.waitForStatus(eventId, EventStatus.DELIVERED);

      expect(h.metrics.get(MetricName.DEFERRED) ?? 0).toBe(deferredBefore);
      const key = naturalTargetKey({ type: "http", url: h.baseUrl });
      const state = await createDynamoTargetStateStore({
        doc: h.clients.documents,
        tableName: h.tableName,
      }).get(key);
      expect(state?.breaker.state ?? "closed").toBe("closed");
    }, 60_000);
  });
});
