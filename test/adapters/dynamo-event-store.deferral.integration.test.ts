import { beforeAll, describe, expect, it } from "vitest";
import { createDynamoEventStore } from "../../lib/adapters/dynamo-event-store.js";
import { DeferralCause } from "../../lib/core/deferral.js";
import type { ClaimRequest, EventStore, RecordDeferralRequest } from "../../lib/core/ports.js";
import { AuditAction } from "../../lib/core/record.js";
import { EventStatus } from "../../lib/core/status.js";
import { isoOf } from "../../lib/core/time-format.js";
import { createMemoryEventStore } from "../simulation/memory-event-store.js";
import { aClaimRequest, anAttemptEntry, anEventId, FIXED_NOW_MS } from "../support/factories.js";
import { createTestTable, testClients } from "../support/local-aws.js";

/*
 * A deferred event's record (issue #36, findings 4 and 5) and a run's given-back attempt
 * (finding 6), in both stores: DynamoDB Local (the real expressions) and the simulation's memory
 * store (which must apply the same rules).
 */
const { documents } = testClients();
const stores: [string, () => Promise<EventStore>][] = [
  [
    "DynamoDB",
    async () =>
      createDynamoEventStore({ doc: documents, tableName: await createTestTable("deferral") }),
  ],
  ["memory", async () => createMemoryEventStore()],
];

const DUE_MS = FIXED_NOW_MS + 30_000;
const TARGET = "group:partner";

const deferralOf = (
  eventId: string,
  overrides: Partial<RecordDeferralRequest> = {},
): RecordDeferralRequest => ({
  eventId,
  generation: 0,
  nowMs: FIXED_NOW_MS,
  envelopeDigest: "digest-a",
  attemptBudget: 4,
  targetSummary: "http POST https://partner.example/hook",
  targetGroup: "partner",
  dueMs: DUE_MS,
  cause: DeferralCause.BREAKER_OPEN,
  targetKey: TARGET,
  ...overrides,
});

const claimOf = (eventId: string, overrides: Partial<ClaimRequest> = {}): ClaimRequest =>
  aClaimRequest(eventId, DUE_MS, overrides);

describe.each(stores)("%s store: a deferred event", (_, make) => {
  let store: EventStore;
  beforeAll(async () => {
    store = await make();
  });

  it("is recorded pending on its first sight, with why it waits and when it is tried next", async () => {
    const id = anEventId();
    expect(await store.recordDeferral(deferralOf(id))).toEqual({ kind: "recorded" });

    expect(await store.get(id)).toMatchObject({
      eventId: id,
      status: EventStatus.PENDING,
      generation: 0,
      attempts: 0,
      attemptBudget: 4,
      envelopeDigest: "digest-a",
      targetGroup: "partner",
      createdAt: isoOf(FIXED_NOW_MS),
      nextAttemptAt: isoOf(DUE_MS),
      deferral: { cause: "breaker_open", targetKey: TARGET, at: isoOf(FIXED_NOW_MS) },
    });
  });

  it("keeps its first sight when deferred again, and is claimed as that event, losing the note", async () => {
    const id = anEventId();
    await store.recordDeferral(deferralOf(id));
    await store.recordDeferral(
      deferralOf(id, {
        nowMs: DUE_MS,
        dueMs: DUE_MS + 5_000,
        cause: DeferralCause.CONCURRENCY_LIMIT,
        attemptBudget: 7,
      }),
    );
    const again = await store.get(id);
    expect(again).toMatchObject({
      createdAt: isoOf(FIXED_NOW_MS),
      attemptBudget: 4,
      nextAttemptAt: isoOf(DUE_MS + 5_000),
      deferral: { cause: "concurrency_limit", at: isoOf(DUE_MS) },
    });

    const claim = await store.claim(claimOf(id, { nowMs: DUE_MS + 5_000 }));
    expect(claim.kind).toBe("claimed");
    const claimed = await store.get(id);
    expect(claimed).toMatchObject({ status: EventStatus.IN_FLIGHT, attempts: 1, attemptBudget: 4 });
    expect(claimed?.deferral).toBeUndefined();
    expect(claimed?.nextAttemptAt).toBeUndefined();
  });

  it("notes a waiting retry's deferral at its generation, keeping its status", async () => {
    const id = anEventId();
    await store.claim(claimOf(id));
    const claimed = await store.get(id);
    if (claimed === undefined) throw new Error("no record");
    await store.recordResult({
      eventId: id,
      worker: "worker-a",
      generation: 0,
      newGeneration: 1,
      status: EventStatus.RETRY_SCHEDULED,
      claimed,
      entry: anAttemptEntry({ delaySeconds: 2 }),
      nextAttemptAt: isoOf(DUE_MS + 2_000),
      nowMs: DUE_MS + 10,
      retentionSeconds: 3_600,
    });

    const later = DUE_MS + 60_000;
    expect(
      await store.recordDeferral(
        deferralOf(id, { generation: 1, nowMs: DUE_MS + 3_000, dueMs: later }),
      ),
    ).toEqual({ kind: "recorded" });
    expect(await store.get(id)).toMatchObject({
      status: EventStatus.RETRY_SCHEDULED,
      generation: 1,
      attempts: 1,
      nextAttemptAt: isoOf(later),
      deferral: { cause: "breaker_open", targetKey: TARGET },
    });
  });

  it("leaves a record in flight, of another generation or of another envelope alone, and returns it", async () => {
    const id = anEventId();
    await store.claim(claimOf(id));
    for (const request of [
      deferralOf(id),
      deferralOf(id, { generation: 1 }),
      deferralOf(id, { envelopeDigest: "digest-b" }),
    ]) {
      const refused = await store.recordDeferral(request);
      expect(refused).toMatchObject({
        kind: "refused",
        record: { eventId: id, status: EventStatus.IN_FLIGHT },
      });
    }
    expect((await store.get(id))?.deferral).toBeUndefined();
  });

  it("is cancelled as a pending event, and the cancel clears the note", async () => {
    const id = anEventId();
    await store.recordDeferral(deferralOf(id));
    const written = await store.recordCancel({
      eventId: id,
      expectedStatus: EventStatus.PENDING,
      generation: 0,
      audit: { at: isoOf(DUE_MS), by: "ana", action: AuditAction.CANCELLED, reason: "gone" },
      nowMs: DUE_MS,
      retentionSeconds: 3_600,
    });
    expect(written).toEqual({ kind: "recorded" });
    const cancelled = await store.get(id);
    expect(cancelled?.status).toBe(EventStatus.CANCELLED);
    expect(cancelled?.deferral).toBeUndefined();
    expect(cancelled?.nextAttemptAt).toBeUndefined();

    expect(await store.recordDeferral(deferralOf(id, { nowMs: DUE_MS + 1 }))).toMatchObject({
      kind: "refused",
      record: { status: EventStatus.CANCELLED },
    });
  });
});

describe.each(stores)("%s store: a run that made no call", (_, make) => {
  let store: EventStore;
  beforeAll(async () => {
    store = await make();
  });

  it("sets the attempt count its result write gives back, and keeps the entry's no-call mark", async () => {
    const id = anEventId();
    await store.claim(claimOf(id));
    const claimed = await store.get(id);
    if (claimed === undefined) throw new Error("no record");
    expect(claimed.attempts).toBe(1);
    await store.recordResult({
      eventId: id,
      worker: "worker-a",
      generation: 0,
      newGeneration: 0,
      status: EventStatus.DEAD_LETTERED,
      claimed,
      entry: anAttemptEntry({
        attempt: 0,
        sentAt: undefined,
        outcome: "permanent",
        statusCode: undefined,
        message: "deadline passed before the attempt could start",
        noCall: true,
      }),
      attempts: 0,
      deadLetterReason: "deadline",
      nowMs: DUE_MS + 10,
      retentionSeconds: 3_600,
    });

    const record = await store.get(id);
    expect(record).toMatchObject({ status: EventStatus.DEAD_LETTERED, attempts: 0 });
    expect(record?.history).toEqual([expect.objectContaining({ attempt: 0, noCall: true })]);
  });
});
