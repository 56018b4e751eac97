import { describe, expect, it } from "vitest";
import { cancelEvents } from "../../../lib/app/operator/cancel.js";
import type {
  TargetAdmission,
  TargetBreakers,
} from "../../../lib/app/orchestrator/target-breakers.js";
import { LimitKind, type TargetLimiter } from "../../../lib/app/orchestrator/target-limits.js";
import { parseEnvelope } from "../../../lib/core/envelope.js";
import { envelopeDigest } from "../../../lib/core/envelope-digest.js";
import { type EventStore, MessageOrigin } from "../../../lib/core/ports.js";
import { EventStatus } from "../../../lib/core/status.js";
import { CallEvidence } from "../../../lib/core/target-health.js";
import { isoOf } from "../../../lib/core/time-format.js";
import {
  type MemoryOrchestratorOptions,
  memoryOrchestrator,
} from "../../support/memory-orchestrator.js";

/*
 * Issue #36, findings 4 and 5: an event a target's breaker or limits turn away has a record from
 * the first time it is seen, which says it is deferred, why, and when it is tried next; status,
 * the console and cancel all read that record. In memory, on a clock the test moves.
 */
const NOW = Date.UTC(2030, 0, 1);
const TARGET = "http:https://partner.example:443";
const REOPEN_MS = NOW + 30_000;

const bodyOf = (eventId: string) =>
  JSON.stringify({
    eventId,
    target: { type: "http", url: "https://partner.example/hook" },
    payload: { eventId },
  });

/** A breaker that answers what `state.admission` says at the time of asking. */
const switchableBreaker = (state: { admission: TargetAdmission }): TargetBreakers => ({
  admit: async () => state.admission,
  recordCall: async () => {},
  abandonProbe: async () => {},
  evidenceOf: () => CallEvidence.HEALTHY,
});

/** The store, with the name of every write it was asked for. */
const countingWrites = (store: EventStore, writes: string[]): EventStore =>
  Object.fromEntries(
    Object.entries(store).map(([name, method]) => [
      name,
      (...args: unknown[]) => {
        if (name !== "get" && name !== "listByStatus") writes.push(name);
        return (method as (...a: unknown[]) => unknown).apply(store, args);
      },
    ]),
  ) as unknown as EventStore;

const world = (
  options: Pick<MemoryOrchestratorOptions, "breakers" | "limits" | "answer" | "store"> = {},
) => {
  const clock = { now: NOW };
  const built = memoryOrchestrator({
    nowMs: NOW,
    clock: () => clock.now,
    workerId: "worker-a",
    seed: 3,
    messageConcurrency: 1,
    ...options,
  });
  const submit = (eventId: string) =>
    built.ingress.send(bodyOf(eventId), { generation: 0 }, 0, { origin: MessageOrigin.PRODUCER });
  return { ...built, clock, submit };
};

describe("an event a target turns away before its first attempt", () => {
  it("has a pending record from first sight that says its breaker is open and when it is tried next", async () => {
    const breaker = { admission: { verdict: "defer", untilMs: REOPEN_MS } as TargetAdmission };
    const w = world({ breakers: switchableBreaker(breaker) });
    w.submit("cb-ok-00");
    await w.handleNext();

    expect(w.calls).toEqual([]);
    const record = await w.store.get("cb-ok-00");
    expect(record).toMatchObject({
      eventId: "cb-ok-00",
      status: EventStatus.PENDING,
      attempts: 0,
      generation: 0,
      nextAttemptAt: isoOf(REOPEN_MS),
      deferral: { cause: "breaker_open", targetKey: TARGET, at: isoOf(NOW) },
    });
    const parsed = parseEnvelope(bodyOf("cb-ok-00"));
    if (!parsed.ok) throw new Error("the test's envelope is invalid");
    expect(record?.envelopeDigest).toBe(envelopeDigest(parsed.envelope));
  });

  it("says which limit turned it away", async () => {
    const limits: TargetLimiter = {
      admit: async () => ({ verdict: "defer", untilMs: NOW + 2_000, limit: LimitKind.RATE }),
    };
    const w = world({ limits });
    w.submit("limited-0");
    await w.handleNext();

    expect(await w.store.get("limited-0")).toMatchObject({
      status: EventStatus.PENDING,
      attempts: 0,
      nextAttemptAt: isoOf(NOW + 2_000),
      deferral: { cause: "rate_limit", targetKey: TARGET },
    });
  });

  it("is cancelled like any waiting event, and its deferred message is then dropped unsent", async () => {
    const breaker = { admission: { verdict: "defer", untilMs: REOPEN_MS } as TargetAdmission };
    const w = world({ breakers: switchableBreaker(breaker) });
    w.submit("cb-ok-01");
    await w.handleNext();

    const report = await cancelEvents(
      { store: w.store, clock: () => w.clock.now, retentionSeconds: 3_600 },
      { eventIds: ["cb-ok-01"], by: "ana", reason: "partner gone" },
    );
    expect(report.cancelled).toEqual([
      { eventId: "cb-ok-01", previousStatus: EventStatus.PENDING },
    ]);
    expect((await w.store.get("cb-ok-01"))?.deferral).toBeUndefined();

    // The breaker is still open when the deferred copy comes back: it is dropped, not deferred again.
    w.clock.now = REOPEN_MS;
    expect(await w.handleNext()).toEqual({ kind: "ack" });
    expect(w.ingress.size()).toBe(0);
    expect(w.calls).toEqual([]);
    expect((await w.store.get("cb-ok-01"))?.status).toBe(EventStatus.CANCELLED);
  });

  it("loses the deferral once its claim is made, and its attempt counts the call", async () => {
    const breaker = { admission: { verdict: "defer", untilMs: REOPEN_MS } as TargetAdmission };
    const w = world({ breakers: switchableBreaker(breaker) });
    w.submit("cb-ok-02");
    await w.handleNext();

    breaker.admission = { verdict: "call" };
    w.clock.now = REOPEN_MS;
    await w.handleNext();

    const record = await w.store.get("cb-ok-02");
    expect(record).toMatchObject({ status: EventStatus.DELIVERED, attempts: 1 });
    expect(record?.deferral).toBeUndefined();
    expect(record?.nextAttemptAt).toBeUndefined();
    expect(w.calls).toHaveLength(1);
  });
});

describe("a waiting retry a target turns away", () => {
  it("shows the deferral's next attempt instead of the retry's, and names the breaker", async () => {
    const breaker = { admission: { verdict: "call" } as TargetAdmission };
    const w = world({
      breakers: switchableBreaker(breaker),
      answer: () => ({ kind: "response", statusCode: 503, durationMs: 1 }),
    });
    w.submit("retry-0");
    await w.handleNext();
    const retrying = await w.store.get("retry-0");
    expect(retrying?.status).toBe(EventStatus.RETRY_SCHEDULED);

    // The retry comes due while the breaker is open.
    breaker.admission = { verdict: "defer", untilMs: REOPEN_MS + 60_000 };
    w.clock.now = Date.parse(retrying?.nextAttemptAt ?? "") + 1_000;
    await w.handleNext();

    expect(await w.store.get("retry-0")).toMatchObject({
      status: EventStatus.RETRY_SCHEDULED,
      attempts: 1,
      nextAttemptAt: isoOf(REOPEN_MS + 60_000),
      deferral: { cause: "breaker_open", targetKey: TARGET, at: isoOf(w.clock.now) },
    });
  });
});

describe("the cost of deferral records", () => {
  /** The store writes the orchestrator makes for one event, its breaker answering `admission`. */
  const writesFor = async (admission: TargetAdmission): Promise<string[]> => {
    const writes: string[] = [];
    const w = world({
      breakers: switchableBreaker({ admission }),
      store: (store) => countingWrites(store, writes),
    });
    w.submit("watched-0");
    await w.handleNext();
    return writes;
  };

  it("adds no write to an event that is not deferred: one claim, one result", async () => {
    expect(await writesFor({ verdict: "call" })).toEqual(["claim", "recordResult"]);
  });

  it("is one write per deferral", async () => {
    expect(await writesFor({ verdict: "defer", untilMs: REOPEN_MS })).toEqual(["recordDeferral"]);
  });
});

describe("a scheduled event's hop", () => {
  it("records the schedule its first message sent but failed to record, before acknowledging", async () => {
    const w = world();
    const dueMs = NOW + 3 * 3_600_000;
    // The hop the producer's message sent before its scheduling write failed.
    w.ingress.send(
      JSON.stringify({ ...JSON.parse(bodyOf("later-0")), notBefore: isoOf(dueMs) }),
      { generation: 0, notBeforeMs: dueMs },
      0,
    );
    expect(await w.handleNext()).toEqual({ kind: "ack" });

    expect(await w.store.get("later-0")).toMatchObject({
      status: EventStatus.SCHEDULED,
      attempts: 0,
      nextAttemptAt: isoOf(dueMs),
    });
    expect(w.ingress.size()).toBe(1);
  });
});
