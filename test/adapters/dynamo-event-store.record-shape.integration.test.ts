import { PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { createCapacityCounter } from "../../bench/support/capacity-counter.js";
import { createDynamoEventStore } from "../../lib/adapters/dynamo-event-store.js";
import { envelopeDigest } from "../../lib/core/envelope-digest.js";
import type { EventStore } from "../../lib/core/ports.js";
import type { EventRecord } from "../../lib/core/record.js";
import { EventStatus } from "../../lib/core/status.js";
import { isoOf } from "../../lib/core/time-format.js";
import { newWorkerId } from "../../lib/runtime/create-ports.js";
import { itWhereEmulated } from "../support/emulator-gaps.js";
import { anAttemptEntry, anEnvelope, anEventId, FIXED_NOW_MS } from "../support/factories.js";
import { createTestTable, testClients } from "../support/local-aws.js";

/*
 * The record item's stored shape against DynamoDB Local: items written by older releases (long
 * history entries, `lastOutcome`, `currentAttempt` with ISO times) still read and still take
 * claims and results, and a retried event's record stays within one write unit.
 */
const capacity = createCapacityCounter("record-shape-capacity");
const clients = testClients({ middleware: [] });
capacity.attach(clients.dynamodb);
let store: EventStore;
let tableName: string;

beforeAll(async () => {
  tableName = await createTestTable("record-shape");
  store = createDynamoEventStore({ doc: clients.documents, tableName });
});

const OLD_WORKER = "worker-0b8f7c1e-4d2a-4c55-9a43-6f2f0d6f1a11";

/** An item as the release before compact entries wrote it, after one failed attempt. */
const oldItem = (eventId: string) => ({
  eventId,
  status: EventStatus.RETRY_SCHEDULED,
  generation: 1,
  attempts: 1,
  attemptBudget: 5,
  createdAt: isoOf(FIXED_NOW_MS),
  updatedAt: isoOf(FIXED_NOW_MS + 20),
  nextAttemptAt: isoOf(FIXED_NOW_MS + 1_020),
  lastDelaySeconds: 1,
  lastOutcome: { class: "retryable", statusCode: 503, message: "HTTP 503" },
  history: [anAttemptEntry({ worker: OLD_WORKER, delaySeconds: 1 })],
  redrives: [],
  targetSummary: "http POST https://receiver.example.com/",
  envelopeDigest: "digest-old",
});

describe("record items written by older releases", () => {
  it("read as the record they describe", async () => {
    const id = anEventId();
    const item = {
      ...oldItem(id),
      status: EventStatus.IN_FLIGHT,
      attempts: 2,
      leaseOwner: OLD_WORKER,
      leaseExpiresAt: FIXED_NOW_MS + 60_000,
      currentAttempt: { worker: OLD_WORKER, claimedAt: isoOf(FIXED_NOW_MS + 1_030) },
    };
    await clients.documents.send(new PutCommand({ TableName: tableName, Item: item }));

    expect(await store.get(id)).toMatchObject({
      status: EventStatus.IN_FLIGHT,
      attempts: 2,
      currentAttempt: { attempt: 2, worker: OLD_WORKER, claimedAt: isoOf(FIXED_NOW_MS + 1_030) },
      lastOutcome: item.lastOutcome,
      history: item.history,
    });
  });

  it("take a claim and a result; the history then reads in order across both forms", async () => {
    const id = anEventId();
    await clients.documents.send(new PutCommand({ TableName: tableName, Item: oldItem(id) }));
    const claim = await store.claim({
      eventId: id,
      generation: 1,
      worker: "w-new",
      nowMs: FIXED_NOW_MS + 1_100,
      leaseMs: 10_000,
      attemptBudget: 5,
      targetSummary: "http POST https://receiver.example.com/",
      envelopeDigest: "digest-old",
    });
    if (claim.kind !== "claimed") throw new Error(`expected a claim, got ${claim.kind}`);
    expect(claim.record.history).toEqual(oldItem(id).history);

    const entry = anAttemptEntry({
      attempt: 2,
      worker: "w-new",
      claimedAt: isoOf(FIXED_NOW_MS + 1_100),
      sentAt: isoOf(FIXED_NOW_MS + 1_103),
      finishedAt: isoOf(FIXED_NOW_MS + 1_150),
      outcome: "success",
      statusCode: 200,
      message: "HTTP 200",
    });
    const written = await store.recordResult({
      eventId: id,
      worker: "w-new",
      generation: 1,
      newGeneration: 1,
      status: EventStatus.DELIVERED,
      claimed: claim.record,
      entry,
      nowMs: FIXED_NOW_MS + 1_150,
      retentionSeconds: 3_600,
    });
    expect(written.kind).toBe("recorded");

    const record = await store.get(id);
    expect(record?.history).toEqual([...oldItem(id).history, entry]);
    // The old item's stored lastOutcome is gone; the last entry's stands in for it.
    expect(record?.lastOutcome).toEqual({ class: "success", statusCode: 200, message: "HTTP 200" });
  });
});

describe("a retried event's record", () => {
  /**
   * Claims and fails an event `attempts` times as the orchestrator does, with production-sized
   * values (a generated worker id per attempt, a real digest, a 50-character target), and
   * returns the write units DynamoDB reported for each claim and result.
   */
  const retryUnits = async (attempts: number, extraAttribute?: string): Promise<number[]> => {
    const id = anEventId();
    const digest = envelopeDigest(anEnvelope({ eventId: id }));
    const targetSummary = "http POST https://hooks.partner.example.com/v1/events";
    const units: number[] = [];
    const measured = async <T>(write: () => Promise<T>): Promise<T> => {
      const before = capacity.snapshot().writeUnits;
      const result = await write();
      units.push(capacity.snapshot().writeUnits - before);
      return result;
    };
    let nowMs = FIXED_NOW_MS;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      const worker = newWorkerId();
      const claim = await measured(() =>
        store.claim({
          eventId: id,
          generation: attempt - 1,
          worker,
          nowMs,
          leaseMs: 35_000,
          attemptBudget: 10,
          targetSummary,
          envelopeDigest: digest,
        }),
      );
      if (claim.kind !== "claimed") throw new Error(`attempt ${attempt}: ${claim.kind}`);
      if (attempt === 1 && extraAttribute !== undefined) {
        await clients.documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { eventId: id },
            UpdateExpression: "SET targetKey = :key",
            ExpressionAttributeValues: { ":key": extraAttribute },
          }),
        );
      }
      const record: EventRecord = claim.record;
      const entry = anAttemptEntry({
        attempt,
        worker,
        claimedAt: isoOf(nowMs),
        sentAt: isoOf(nowMs + 4),
        finishedAt: isoOf(nowMs + 31),
        message: "HTTP 503: service unavailable",
        delaySeconds: 1,
      });
      await measured(() =>
        store.recordResult({
          eventId: id,
          worker,
          generation: record.generation,
          newGeneration: record.generation + 1,
          status: EventStatus.RETRY_SCHEDULED,
          claimed: record,
          entry,
          nextAttemptAt: isoOf(nowMs + 1_031),
          nowMs: nowMs + 31,
          retentionSeconds: 3_600,
        }),
      );
      nowMs += 1_040;
    }
    return units;
  };

  itWhereEmulated(
    "consumedCapacityBySize",
    "costs one table unit per claim and per result through six failed attempts, and one due-index unit per wait entered or left",
    async () => {
      // The first claim enters no wait; each retry's result enters the byDue index and the
      // claim after it leaves it (lib/contract/record-table.ts DUE_INDEX).
      expect(await retryUnits(6)).toEqual([1, ...Array.from({ length: 11 }, () => 2)]);
    },
  );

  itWhereEmulated(
    "consumedCapacityBySize",
    "still does with a 40-character target key beside it, through five",
    async () => {
      expect(await retryUnits(5, "t".repeat(40))).toEqual([
        1,
        ...Array.from({ length: 9 }, () => 2),
      ]);
    },
  );
});
