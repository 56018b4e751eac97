import { beforeAll, describe, expect, it } from "vitest";
import { createDynamoEventStore } from "../../lib/adapters/dynamo-event-store.js";
import type { ClaimRequest, EventStore, RecordScheduledRequest } from "../../lib/core/ports.js";
import { EventStatus } from "../../lib/core/status.js";
import { isoOf } from "../../lib/core/time-format.js";
import { createMemoryEventStore } from "../simulation/memory-event-store.js";
import { aClaimRequest, anEventId, FIXED_NOW_MS } from "../support/factories.js";
import { createTestTable, testClients } from "../support/local-aws.js";

/*
 * A scheduled event's record, in both stores: DynamoDB Local (the real condition expressions)
 * and the simulation's memory store (which must apply the same rules, or the simulation proves
 * nothing about the real one).
 */
const { documents } = testClients();
const stores: [string, () => Promise<EventStore>][] = [
  [
    "DynamoDB",
    async () =>
      createDynamoEventStore({ doc: documents, tableName: await createTestTable("scheduled") }),
  ],
  ["memory", async () => createMemoryEventStore()],
];

const DUE_MS = FIXED_NOW_MS + 3_600_000;

const scheduleOf = (
  eventId: string,
  overrides: Partial<RecordScheduledRequest> = {},
): RecordScheduledRequest => ({
  eventId,
  envelopeDigest: "digest-a",
  dueMs: DUE_MS,
  nowMs: FIXED_NOW_MS,
  attemptBudget: 4,
  targetSummary: "http POST https://receiver.example.com/",
  targetGroup: "tenant-1",
  ...overrides,
});

const claimOf = (eventId: string, overrides: Partial<ClaimRequest> = {}): ClaimRequest =>
  aClaimRequest(eventId, DUE_MS, overrides);

describe.each(stores)("%s store: a scheduled event", (_, make) => {
  let store: EventStore;
  beforeAll(async () => {
    store = await make();
  });

  it("is recorded scheduled with its due time, no attempt made and the policy's budget", async () => {
    const id = anEventId();
    await store.recordScheduled(scheduleOf(id));
    expect(await store.get(id)).toMatchObject({
      eventId: id,
      status: EventStatus.SCHEDULED,
      generation: 0,
      attempts: 0,
      attemptBudget: 4,
      nextAttemptAt: isoOf(DUE_MS),
      envelopeDigest: "digest-a",
      targetGroup: "tenant-1",
      createdAt: isoOf(FIXED_NOW_MS),
    });
  });

  it("is claimed at generation 0 when due, keeping its budget and first-sight time", async () => {
    const id = anEventId();
    await store.recordScheduled(scheduleOf(id));
    const claim = await store.claim(claimOf(id));
    expect(claim).toMatchObject({ kind: "claimed", takeover: false });
    const record = await store.get(id);
    expect(record).toMatchObject({
      status: EventStatus.IN_FLIGHT,
      attempts: 1,
      attemptBudget: 4,
      createdAt: isoOf(FIXED_NOW_MS),
    });
    expect(record?.nextAttemptAt).toBeUndefined();
  });

  it("keeps its first-sight time when a duplicate of the producer's message records it again", async () => {
    const id = anEventId();
    await store.recordScheduled(scheduleOf(id));
    await store.recordScheduled(scheduleOf(id, { nowMs: FIXED_NOW_MS + 5_000 }));
    expect(await store.get(id)).toMatchObject({
      status: EventStatus.SCHEDULED,
      createdAt: isoOf(FIXED_NOW_MS),
      updatedAt: isoOf(FIXED_NOW_MS + 5_000),
    });
  });

  it("never overwrites another envelope's record, nor an event that has moved on", async () => {
    const other = anEventId();
    await store.recordScheduled(scheduleOf(other));
    await store.recordScheduled(scheduleOf(other, { envelopeDigest: "digest-b", dueMs: 1 }));
    expect(await store.get(other)).toMatchObject({
      envelopeDigest: "digest-a",
      nextAttemptAt: isoOf(DUE_MS),
    });

    const moved = anEventId();
    await store.claim(claimOf(moved, { nowMs: FIXED_NOW_MS }));
    await store.recordScheduled(scheduleOf(moved));
    expect(await store.get(moved)).toMatchObject({ status: EventStatus.IN_FLIGHT, attempts: 1 });
  });

  it("may be redriven when a crash loop parked its hop (stranded, like a waiting retry)", async () => {
    const id = anEventId();
    await store.recordScheduled(scheduleOf(id));
    const outcome = await store.recordRedrive({
      eventId: id,
      generation: 1,
      attemptBudget: 4,
      audit: {
        at: isoOf(FIXED_NOW_MS),
        by: "oncall",
        reason: "stranded",
        previousStatus: EventStatus.SCHEDULED,
        previousAttempts: 0,
        attemptBudget: 4,
      },
      nowMs: FIXED_NOW_MS + 1_000,
    });
    expect(outcome).toEqual({ kind: "recorded" });
    expect(await store.get(id)).toMatchObject({ status: EventStatus.PENDING, generation: 1 });
  });
});
