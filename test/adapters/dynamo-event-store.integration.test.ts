import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { createDynamoEventStore } from "../../lib/adapters/dynamo-event-store.js";
import { createDynamoTargetStateStore } from "../../lib/adapters/dynamo-target-state-store.js";
import { STATUS_INDEX } from "../../lib/contract/record-table.js";
import type { ClaimRequest, EventStore, RecordResultRequest } from "../../lib/core/ports.js";
import {
  type EventRecord,
  MAX_HISTORY_ENTRIES,
  type PendingDeadLetter,
} from "../../lib/core/record.js";
import { EventStatus } from "../../lib/core/status.js";
import { anAttemptEntry, anEventId, FIXED_NOW_MS } from "../support/factories.js";
import { createTestTable, testClients } from "../support/local-aws.js";

/*
 * The store's conditional writes against DynamoDB Local: the claim rules of lib/core/claim.ts as
 * the real condition expressions apply them, the result guard, and the sparse status index.
 */
const { documents } = testClients();
const LEASE_MS = 10_000;
let store: EventStore;
let tableName: string;

beforeAll(async () => {
  tableName = await createTestTable("store");
  store = createDynamoEventStore({ doc: documents, tableName });
});

const claimOf = (eventId: string, overrides: Partial<ClaimRequest> = {}): ClaimRequest => ({
  eventId,
  generation: 0,
  worker: "worker-a",
  nowMs: FIXED_NOW_MS,
  leaseMs: LEASE_MS,
  attemptBudget: 3,
  targetSummary: "http POST https://receiver.example.com/",
  envelopeDigest: "digest-a",
  ...overrides,
});

const resultOf = (
  claimed: EventRecord,
  status: RecordResultRequest["status"],
  overrides: Partial<RecordResultRequest> = {},
): RecordResultRequest => ({
  eventId: claimed.eventId,
  worker: "worker-a",
  generation: claimed.generation,
  newGeneration:
    status === EventStatus.RETRY_SCHEDULED ? claimed.generation + 1 : claimed.generation,
  status,
  claimed,
  entry: anAttemptEntry({ attempt: claimed.attempts }),
  nowMs: FIXED_NOW_MS + 100,
  retentionSeconds: 3600,
  ...overrides,
});

const claimed = async (
  eventId: string,
  overrides: Partial<ClaimRequest> = {},
): Promise<EventRecord> => {
  const result = await store.claim(claimOf(eventId, overrides));
  if (result.kind !== "claimed") throw new Error(`expected a claim, got ${result.kind}`);
  return result.record;
};

describe("DynamoDB event store", () => {
  it("creates the record on the first claim, leased and on attempt 1, and returns it as written", async () => {
    const id = anEventId();
    const record = await claimed(id);

    expect(record).toMatchObject({
      status: "in_flight",
      attempts: 1,
      attemptBudget: 3,
      leaseOwner: "worker-a",
    });
    expect(await store.get(id)).toMatchObject({
      status: "in_flight",
      attempts: 1,
      leaseExpiresAt: FIXED_NOW_MS + LEASE_MS,
      currentAttempt: { attempt: 1, worker: "worker-a" },
    });
    expect(await store.get(id)).toEqual(record);
  });

  it("returns the record exactly as stored when a later claim updates it", async () => {
    const id = anEventId();
    const first = await claimed(id);
    await store.recordResult(resultOf(first, EventStatus.RETRY_SCHEDULED));

    const retry = await claimed(id, { generation: 1, nowMs: FIXED_NOW_MS + 1_000 });

    expect(retry).toMatchObject({ attempts: 2, generation: 1, status: "in_flight" });
    expect(await store.get(id)).toEqual(retry);
  });

  it("keeps the policy adjustments of the claim that created the record, and only those", async () => {
    const adjustments = ["maxAttempts 100 lowered to the deployment's ceiling 25"];
    const id = anEventId();
    const first = await claimed(id, { policyAdjustments: adjustments });
    await store.recordResult(resultOf(first, EventStatus.RETRY_SCHEDULED));
    const retry = await claimed(id, {
      generation: 1,
      nowMs: FIXED_NOW_MS + 1_000,
      policyAdjustments: ["something else"],
    });
    expect(first.policyAdjustments).toEqual(adjustments);
    expect(retry.policyAdjustments).toEqual(adjustments);
    expect((await store.get(id))?.policyAdjustments).toEqual(adjustments);

    // A record first written by a later generation's claim (the update path) keeps them too.
    const late = anEventId();
    const lateClaim = await claimed(late, { generation: 2, policyAdjustments: adjustments });
    expect(lateClaim.policyAdjustments).toEqual(adjustments);
    expect(await store.get(late)).toEqual(lateClaim);

    const unclamped = anEventId();
    await claimed(unclamped, { policyAdjustments: [] });
    expect((await store.get(unclamped))?.policyAdjustments).toBeUndefined();
  });

  it.each([
    ["a live lease", { worker: "worker-b", nowMs: FIXED_NOW_MS + 1 }, "lease_held"],
    ["an older generation's copy", { generation: -1 }, "stale"],
    ["a copy ahead of the record", { generation: 1 }, "ahead"],
  ] as const)("refuses a claim against %s as %s", async (_, overrides, kind) => {
    const id = anEventId();
    await claimed(id);
    expect((await store.claim(claimOf(id, overrides))).kind).toBe(kind);
  });

  it("lets another worker take over once the lease has expired, counting a new run", async () => {
    const id = anEventId();
    await claimed(id);
    const result = await store.claim(
      claimOf(id, { worker: "worker-b", nowMs: FIXED_NOW_MS + LEASE_MS + 1 }),
    );

    expect(result).toMatchObject({
      kind: "claimed",
      takeover: true,
      record: { attempts: 2, leaseOwner: "worker-b" },
    });
  });

  it(`keeps the last ${MAX_HISTORY_ENTRIES} attempts in order, dropping the oldest, while counting every one`, async () => {
    const id = anEventId();
    const attempts = MAX_HISTORY_ENTRIES + 2;
    for (let generation = 0; generation < attempts; generation += 1) {
      const record = await claimed(id, { generation, attemptBudget: attempts });
      const written = await store.recordResult(resultOf(record, EventStatus.RETRY_SCHEDULED));
      expect(written).toEqual({ kind: "recorded" });
    }

    const stored = await store.get(id);
    expect(stored?.attempts).toBe(attempts);
    expect(stored?.history.map((entry) => entry.attempt)).toEqual(
      Array.from({ length: MAX_HISTORY_ENTRIES }, (_, i) => attempts - MAX_HISTORY_ENTRIES + 1 + i),
    );
  });

  it("refuses a result from a worker that lost its lease", async () => {
    const id = anEventId();
    const first = await claimed(id);
    await claimed(id, { worker: "worker-b", nowMs: FIXED_NOW_MS + LEASE_MS + 1 });

    expect(await store.recordResult(resultOf(first, EventStatus.DELIVERED))).toEqual({
      kind: "lease_lost",
    });
    expect((await store.get(id))?.leaseOwner).toBe("worker-b");
  });

  it("keeps a dead-letter decision through a takeover and clears it with the result", async () => {
    const id = anEventId();
    await claimed(id);
    const pending: PendingDeadLetter = {
      reason: "rejected",
      entry: anAttemptEntry({ attempt: 1, outcome: "permanent", statusCode: 400 }),
      lastOutcome: { class: "permanent", statusCode: 400, message: "HTTP 400" },
      generation: 0,
      attempts: 1,
      decidedAt: new Date(FIXED_NOW_MS).toISOString(),
    };
    const noted = await store.recordPendingDeadLetter({
      eventId: id,
      worker: "worker-a",
      generation: 0,
      pending,
      nowMs: FIXED_NOW_MS + 50,
    });
    const takeover = await claimed(id, { worker: "worker-b", nowMs: FIXED_NOW_MS + LEASE_MS + 1 });
    const late = await store.recordPendingDeadLetter({
      eventId: id,
      worker: "worker-a",
      generation: 0,
      pending,
      nowMs: FIXED_NOW_MS + LEASE_MS + 2,
    });

    expect(noted).toEqual({ kind: "recorded" });
    expect(late).toEqual({ kind: "lease_lost" });
    expect(takeover.pendingDeadLetter).toEqual(pending);
    await store.recordResult(
      resultOf(takeover, EventStatus.REJECTED, { worker: "worker-b", entry: pending.entry }),
    );
    expect((await store.get(id))?.pendingDeadLetter).toBeUndefined();
  });

  it("answers a copy of a finished event as finished, whatever its generation", async () => {
    const id = anEventId();
    const record = await claimed(id);
    await store.recordResult(resultOf(record, EventStatus.DELIVERED));

    expect((await store.claim(claimOf(id))).kind).toBe("finished");
  });

  it("never lets an invalid message overwrite the record of a valid event with the same id", async () => {
    const id = anEventId();
    await claimed(id);
    await store.recordInvalid({
      eventId: id,
      worker: "worker-a",
      message: "bad",
      nowMs: FIXED_NOW_MS,
      retentionSeconds: 60,
    });

    expect((await store.get(id))?.status).toBe("in_flight");
  });

  it("keeps only events needing a decision in the status index, so the hot path never writes it", async () => {
    const delivered = anEventId("sparse-ok");
    const rejected = anEventId("sparse-bad");
    await store.recordResult(resultOf(await claimed(delivered), EventStatus.DELIVERED));
    await store.recordResult(resultOf(await claimed(rejected), EventStatus.REJECTED));
    const indexed = await documents.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: STATUS_INDEX.name,
        KeyConditionExpression: "listedStatus = :s",
        ExpressionAttributeValues: { ":s": "rejected" },
      }),
    );

    expect(indexed.Items?.map((item) => item.eventId)).toContain(rejected);
    expect(indexed.Items?.map((item) => item.eventId)).not.toContain(delivered);
  });

  it.each([
    [EventStatus.DEAD_LETTERED, "from the index"],
    [EventStatus.DELIVERED, "by a filtered scan"],
  ] as const)(
    "lists %s records %s, only those last updated before the cut-off",
    async (status, _how) => {
      const old = anEventId("list-old");
      const recent = anEventId("list-new");
      await store.recordResult(
        resultOf(await claimed(old), status, { nowMs: FIXED_NOW_MS + 1_000 }),
      );
      await store.recordResult(
        resultOf(await claimed(recent), status, { nowMs: FIXED_NOW_MS + 60_000 }),
      );
      const { records: listed } = await store.listByStatus({
        status,
        updatedBefore: new Date(FIXED_NOW_MS + 30_000).toISOString(),
        limit: 1_000,
      });

      expect(listed.every((r) => r.status === status)).toBe(true);
      expect(listed.map((r) => r.eventId)).toContain(old);
      expect(listed.map((r) => r.eventId)).not.toContain(recent);
    },
  );

  it.each([
    [EventStatus.DEAD_LETTERED, "from the index"],
    [EventStatus.DELIVERED, "by a filtered scan"],
  ] as const)(
    "lists %s records of one target %s: by origin, and by group whatever the URL",
    async (status, _how) => {
      const partner = "http POST https://partner.example/orders";
      const ids = {
        partner: [anEventId("t-partner"), anEventId("t-partner")],
        other: anEventId("t-other"),
        grouped: anEventId("t-grouped"),
      };
      const claims = [
        ...ids.partner.map((id) => claimed(id, { targetSummary: partner })),
        claimed(ids.other, { targetSummary: "http POST https://other.example:8443/x" }),
        claimed(ids.grouped, { targetSummary: partner, targetGroup: "tenant-9" }),
      ];
      for (const record of await Promise.all(claims))
        await store.recordResult(resultOf(record, status));

      const listOf = async (targetKey: string) =>
        (await store.listByStatus({ status, targetKey, limit: 1_000 })).records.map(
          (r) => r.eventId,
        );

      expect(new Set(await listOf("http:https://partner.example:443"))).toEqual(
        new Set(ids.partner),
      );
      expect(await listOf("group:tenant-9")).toEqual([ids.grouped]);
      expect(await listOf("http:https://other.example:8443")).toEqual([ids.other]);
      expect(
        await store.listByStatus({
          status,
          targetKey: "http:https://partner.example:443",
          limit: 1,
        }),
      ).toMatchObject({ records: [expect.anything()], cutShort: false });
    },
  );

  describe("listing the most recent events", () => {
    // A table of its own: five events claimed a second apart, and a breaker item beside them.
    let recent: EventStore;
    const ids = Array.from({ length: 5 }, (_, n) => `recent-${n}`);
    beforeAll(async () => {
      const table = await createTestTable("list-recent");
      recent = createDynamoEventStore({ doc: documents, tableName: table });
      for (const [n, id] of ids.entries()) {
        const result = await recent.claim(claimOf(id, { nowMs: FIXED_NOW_MS + n * 1000 }));
        if (result.kind !== "claimed") throw new Error(`claim of ${id}: ${result.kind}`);
        if (n % 2 === 0)
          await recent.recordResult(
            resultOf(result.record, EventStatus.DELIVERED, {
              nowMs: FIXED_NOW_MS + n * 1000 + 100,
            }),
          );
      }
      await createDynamoTargetStateStore({ doc: documents, tableName: table }).countFailure({
        key: "http:https://receiver.example.com:443",
        successes: 0,
        failures: 1,
        windowStartMs: FIXED_NOW_MS,
        nowMs: FIXED_NOW_MS + 60_000,
      });
    });

    it("lists events of every status, newest update first, and no breaker item", async () => {
      const listing = await recent.listRecent({ limit: 3 });
      expect(listing).toMatchObject({ cutShort: false });
      expect(listing.records.map((r) => r.eventId)).toEqual(["recent-4", "recent-3", "recent-2"]);
      expect(new Set(listing.records.map((r) => r.status))).toEqual(
        new Set([EventStatus.DELIVERED, EventStatus.IN_FLIGHT]),
      );
    });

    it("says it was cut short when the read budget ends before the table", async () => {
      const listing = await recent.listRecent({ limit: 10, maxItemsRead: 2 });
      expect(listing.cutShort).toBe(true);
      expect(listing.records.length).toBeLessThanOrEqual(2);
    });

    it("lists only events updated before an instant", async () => {
      const before = new Date(FIXED_NOW_MS + 1500).toISOString();
      const listing = await recent.listRecent({ limit: 10, updatedBefore: before });
      expect(listing.records.map((r) => r.eventId)).toEqual(["recent-1", "recent-0"]);
    });
  });

  describe("with a read budget", () => {
    // A table of its own, so that the items read are exactly these.
    let budgeted: EventStore;
    const ids = Array.from({ length: 12 }, (_, n) => `budget-${n}`);
    beforeAll(async () => {
      const tableName = await createTestTable("list-budget");
      budgeted = createDynamoEventStore({ doc: documents, tableName });
      for (const [n, id] of ids.entries()) {
        const record = await budgeted.claim(claimOf(id));
        if (record.kind !== "claimed") throw new Error(`claim of ${id}: ${record.kind}`);
        // One in four dead-lettered (the index), the others delivered (a scan).
        const status = n % 4 === 0 ? EventStatus.DEAD_LETTERED : EventStatus.DELIVERED;
        await budgeted.recordResult(resultOf(record.record, status));
      }
    });

    it.each([
      // [case, status, target, limit, maxItemsRead, records listed, cut short]
      [
        "a scan stopped by the budget before its limit",
        EventStatus.DELIVERED,
        undefined,
        50,
        4,
        "at most 4",
        true,
      ],
      [
        "a scan that reads the table through within the budget",
        EventStatus.DELIVERED,
        undefined,
        50,
        100,
        9,
        false,
      ],
      [
        "a scan that finds its limit within the budget",
        EventStatus.DELIVERED,
        undefined,
        2,
        100,
        2,
        false,
      ],
      [
        "the index, whose items all match, up to its limit",
        EventStatus.DEAD_LETTERED,
        undefined,
        2,
        2,
        2,
        false,
      ],
      [
        "the index filtered by a target none has, stopped by the budget",
        EventStatus.DEAD_LETTERED,
        "http:https://nobody.example:443",
        50,
        1,
        0,
        true,
      ],
      ["the index read through", EventStatus.DEAD_LETTERED, undefined, 50, 100, 3, false],
    ] as const)("%s", async (_case, status, targetKey, limit, maxItemsRead, listed, cutShort) => {
      const result = await budgeted.listByStatus({ status, targetKey, limit, maxItemsRead });
      expect(result.cutShort).toBe(cutShort);
      if (typeof listed === "number") expect(result.records).toHaveLength(listed);
      else expect(result.records.length).toBeLessThanOrEqual(4);
      expect(result.records.every((r) => r.status === status)).toBe(true);
    });
  });

  it("takes a redriven record out of the index and back to pending at the next generation", async () => {
    const id = anEventId();
    const record = await claimed(id);
    await store.recordResult(
      resultOf(record, EventStatus.DEAD_LETTERED, { deadLetterReason: "exhausted" }),
    );
    const outcome = await store.recordRedrive({
      eventId: id,
      generation: 1,
      attemptBudget: 6,
      audit: {
        at: new Date(FIXED_NOW_MS).toISOString(),
        by: "oncall",
        reason: "fixed",
        previousStatus: "dead_lettered",
        previousAttempts: 1,
        attemptBudget: 6,
      },
      nowMs: FIXED_NOW_MS + 200,
    });

    expect(outcome).toEqual({ kind: "recorded" });
    const { records: listed } = await store.listByStatus({
      status: EventStatus.DEAD_LETTERED,
      limit: 1_000,
    });
    expect(listed.map((r) => r.eventId)).not.toContain(id);
    expect(await store.get(id)).toMatchObject({
      status: "pending",
      generation: 1,
      attemptBudget: 6,
    });
  });
});

describe("simultaneous claims of one event", () => {
  const ROUNDS = 20;
  const WORKERS = 8;

  // "No two attempts of one event overlap" rests on DynamoDB applying a condition and its update
  // as one step. Eight workers claim at once, round after round: exactly one may win each time.
  // On moto this holds only because test/moto/serialised_moto.py serialises DynamoDB requests.
  it("lets exactly one of eight simultaneous claims win, round after round", async () => {
    const winnersPerRound: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const id = anEventId("race");
      const first = await claimed(id);
      await store.recordResult(resultOf(first, EventStatus.RETRY_SCHEDULED));
      const results = await Promise.all(
        Array.from({ length: WORKERS }, (_, n) =>
          store.claim(
            claimOf(id, { generation: 1, worker: `worker-${n}`, nowMs: FIXED_NOW_MS + 1_000 }),
          ),
        ),
      );
      winnersPerRound.push(results.filter((result) => result.kind === "claimed").length);
    }
    expect(winnersPerRound).toEqual(Array.from({ length: ROUNDS }, () => 1));
  }, 60_000);
});
