import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { beforeEach, describe, expect, it } from "vitest";
import { createDynamoEventStore } from "../lib/adapters/dynamo-event-store.js";
import { scheduleFromAttributes, scheduleToAttributes } from "../lib/adapters/message-schedule.js";
import { createSqsDeadLetterQueue } from "../lib/adapters/sqs-dead-letter-queue.js";
import { createSqsIngressQueue } from "../lib/adapters/sqs-ingress-queue.js";
import { DEFAULT_POLICY } from "../lib/core/policy.js";
import type { EventStore } from "../lib/core/ports.js";
import { EventStatus } from "../lib/core/status.js";
import { listDeadLetters } from "../lib/dead-letter-scan.js";
import { type RedriveDeps, redrive } from "../lib/redrive.js";
import { receiveRaw } from "./adapters/sqs-test-support.js";
import { anEnvelope, FIXED_NOW_MS } from "./factories.js";
import { createTestQueues, createTestTable, testClients } from "./support/local-aws.js";

/*
 * A crash loop: the function dies on an event's message every time, so the queue's native
 * maxReceiveCount redrive parks the producer's raw body in the dead-letter queue while the record
 * stays `in_flight` with an expired lease. Nothing else would ever move that event again; the
 * redrive must recognise the raw body and bring the event back.
 */
const { sqs, documents } = testClients();
const LEASE_MS = 1_000;

let deps: RedriveDeps;
let store: EventStore;
let queues: Awaited<ReturnType<typeof createTestQueues>>;
let now: number;

beforeEach(async () => {
  const [created, tableName] = await Promise.all([
    createTestQueues("stranded"),
    createTestTable("stranded"),
  ]);
  queues = created;
  store = createDynamoEventStore({ doc: documents, tableName });
  now = FIXED_NOW_MS;
  deps = {
    deadLetterQueue: createSqsDeadLetterQueue({ sqs, queueUrl: queues.deadLetterQueueUrl }),
    ingressQueue: createSqsIngressQueue({ sqs, queueUrl: queues.ingressQueueUrl }),
    store,
    clock: () => now,
    sleep: async (ms) => {
      now += ms;
    },
    defaultPolicy: DEFAULT_POLICY,
    scanVisibilitySeconds: 5,
  };
});

/** Claims the event (the crashing run) and parks its raw body as the native redrive would. */
const strand = async (generation = 0) => {
  const envelope = anEnvelope();
  await store.claim({
    eventId: envelope.eventId,
    generation,
    worker: "crashing-worker",
    nowMs: now,
    leaseMs: LEASE_MS,
    attemptBudget: 8,
    targetSummary: "http POST https://receiver.example.com/hooks/orders",
  });
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queues.deadLetterQueueUrl,
      MessageBody: JSON.stringify(envelope),
      MessageAttributes: scheduleToAttributes({ generation }),
    }),
  );
  return envelope;
};

describe("redrive of a crash-looped event", () => {
  it("lists a parked raw envelope as unprocessed, with its event id", async () => {
    const envelope = await strand();
    const listing = await listDeadLetters(deps.deadLetterQueue, { filter: {} });

    expect(listing).toEqual([
      expect.objectContaining({ eventId: envelope.eventId, reason: "unprocessed", generation: 0 }),
    ]);
  });

  it("brings a stranded event back once its lease has expired, with a new generation", async () => {
    const envelope = await strand();
    now += LEASE_MS + 1;
    const report = await redrive(deps, {
      reasons: ["unprocessed"],
      resetAttempts: true,
      by: "oncall",
    });

    expect(report.moved).toEqual([
      expect.objectContaining({ eventId: envelope.eventId, generation: 1 }),
    ]);
    const record = await store.get(envelope.eventId);
    expect(record).toMatchObject({ status: EventStatus.PENDING, generation: 1, attemptBudget: 9 });
    expect(record?.redrives[0]).toMatchObject({ by: "oncall", previousStatus: "in_flight" });
    const [live] = await receiveRaw(sqs, queues.ingressQueueUrl);
    expect(scheduleFromAttributes(live?.MessageAttributes).generation).toBe(1);
    expect(await receiveRaw(sqs, queues.deadLetterQueueUrl, { wait: 0 })).toEqual([]);
  });

  it("leaves an event whose lease is still live to the worker that holds it", async () => {
    const envelope = await strand();
    const report = await redrive(deps, {
      eventIds: [envelope.eventId],
      resetAttempts: true,
      by: "oncall",
    });

    expect(report.moved).toEqual([]);
    expect(report.skipped).toEqual([expect.objectContaining({ eventId: envelope.eventId })]);
    expect((await store.get(envelope.eventId))?.status).toBe(EventStatus.IN_FLIGHT);
  });
});
