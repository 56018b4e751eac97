import { beforeAll, describe, expect, it } from "vitest";
import { createDynamoEventStore } from "../../../lib/adapters/dynamo-event-store.js";
import type { ClaimRequest, EventStore } from "../../../lib/core/ports.js";
import { AuditAction, type AuditEntry, type EventRecord } from "../../../lib/core/record.js";
import { EventStatus } from "../../../lib/core/status.js";
import { ANA_CALLER } from "../../support/counting-caller-identity.js";
import { anAttemptEntry, anEventId, FIXED_NOW_MS } from "../../support/factories.js";
import { createTestTable, testClients } from "../../support/local-aws.js";

/*
 * The cancel and replay writes against DynamoDB Local: the rules of lib/core/cancel-rule.ts and
 * lib/core/replay-rule.ts as the real condition expressions apply them.
 */
const { documents } = testClients();
let store: EventStore;

beforeAll(async () => {
  store = createDynamoEventStore({ doc: documents, tableName: await createTestTable("opwrites") });
});

const NOW = FIXED_NOW_MS;
const claimOf = (eventId: string, generation: number, nowMs = NOW): ClaimRequest => ({
  eventId,
  generation,
  worker: "worker-a",
  nowMs,
  leaseMs: 10_000,
  attemptBudget: 3,
  targetSummary: "http POST https://receiver.example.com/",
  envelopeDigest: "digest-a",
});
const audit = (action: AuditAction): AuditEntry => ({
  at: new Date(NOW).toISOString(),
  by: "ops",
  action,
  reason: "test",
  caller: ANA_CALLER,
});

/** An event after its first attempt: `retry_scheduled` at generation 1, or `delivered` at 0. */
const afterFirstAttempt = async (
  status: typeof EventStatus.RETRY_SCHEDULED | typeof EventStatus.DELIVERED,
): Promise<EventRecord> => {
  const eventId = anEventId();
  const claim = await store.claim(claimOf(eventId, 0));
  if (claim.kind !== "claimed") throw new Error(`expected a claim, got ${claim.kind}`);
  const retry = status === EventStatus.RETRY_SCHEDULED;
  await store.recordResult({
    eventId,
    worker: "worker-a",
    generation: 0,
    newGeneration: retry ? 1 : 0,
    status,
    claimed: claim.record,
    entry: anAttemptEntry(),
    nowMs: NOW + 10,
    retentionSeconds: 3_600,
  });
  const record = await store.get(eventId);
  if (record === undefined) throw new Error("record vanished");
  return record;
};

const cancelOf = (record: EventRecord, nowMs = NOW + 20) => ({
  eventId: record.eventId,
  expectedStatus: record.status,
  generation: record.generation,
  audit: audit(AuditAction.CANCELLED),
  nowMs,
  retentionSeconds: 3_600,
});

describe("DynamoDB cancel and replay writes", () => {
  it("cancels a waiting event: terminal, audited, with a TTL; its retry's claim finds it finished", async () => {
    const waiting = await afterFirstAttempt(EventStatus.RETRY_SCHEDULED);
    expect(await store.recordCancel(cancelOf(waiting))).toEqual({ kind: "recorded" });
    const record = await store.get(waiting.eventId);
    expect(record).toMatchObject({
      status: EventStatus.CANCELLED,
      generation: 1,
      nextAttemptAt: undefined,
      expiresAt: Math.floor((NOW + 20) / 1000) + 3_600,
      audit: [audit(AuditAction.CANCELLED)],
    });
    const claim = await store.claim(claimOf(waiting.eventId, 1, NOW + 30));
    expect(claim).toMatchObject({ kind: "finished", record: { status: EventStatus.CANCELLED } });
  });

  it("refuses a cancel once a claim took the event in flight, returning the record that refused it", async () => {
    const waiting = await afterFirstAttempt(EventStatus.RETRY_SCHEDULED);
    await store.claim(claimOf(waiting.eventId, 1, NOW + 15));
    const outcome = await store.recordCancel(cancelOf(waiting));
    expect(outcome).toMatchObject({ kind: "conflict", record: { status: EventStatus.IN_FLIGHT } });
    // The attempt's result still lands: the cancel never touched the record.
    expect((await store.get(waiting.eventId))?.leaseOwner).toBe("worker-a");
  });

  it("refuses a cancel of a status the rule does not cancel, even when the caller expects it", async () => {
    const delivered = await afterFirstAttempt(EventStatus.DELIVERED);
    expect(await store.recordCancel(cancelOf(delivered))).toMatchObject({
      kind: "conflict",
      record: { status: EventStatus.DELIVERED },
    });
  });

  it("moves a delivered event back to pending for a replay, once per generation", async () => {
    const delivered = await afterFirstAttempt(EventStatus.DELIVERED);
    const replay = {
      eventId: delivered.eventId,
      generation: delivered.generation + 1,
      attemptBudget: 4,
      audit: audit(AuditAction.REPLAYED),
      nowMs: NOW + 20,
    };
    expect(await store.recordReplay(replay)).toEqual({ kind: "recorded" });
    expect(await store.get(delivered.eventId)).toMatchObject({
      status: EventStatus.PENDING,
      generation: 1,
      attemptBudget: 4,
      replays: 1,
      expiresAt: undefined,
      audit: [audit(AuditAction.REPLAYED)],
    });
    expect(await store.recordReplay(replay)).toMatchObject({
      kind: "conflict",
      record: { status: EventStatus.PENDING, generation: 1 },
    });
  });
});
