import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { beforeEach, describe, expect, it } from "vitest";
import {
  scheduleFromAttributes,
  scheduleToAttributes,
} from "../../../lib/adapters/message-schedule.js";
import { listDeadLetters } from "../../../lib/app/operator/dead-letter-scan.js";
import { redrive } from "../../../lib/app/operator/redrive.js";
import type { RedriveDeps } from "../../../lib/app/operator/redrive-deps.js";
import { envelopeDigest } from "../../../lib/core/envelope-digest.js";
import type { EventStore } from "../../../lib/core/ports.js";
import { EventStatus } from "../../../lib/core/status.js";
import { receiveRaw } from "../../adapters/sqs-test-support.js";
import { anEnvelope } from "../../support/factories.js";
import { testClients } from "../../support/local-aws.js";
import { createRedriveWorld, type RedriveWorld } from "../../support/redrive-world.js";

/*
 * A crash loop: the function dies on an event's message every time, so the queue's native
 * maxReceiveCount redrive parks the producer's raw body in the dead-letter queue while the record
 * stays `in_flight` with an expired lease. Nothing else would ever move that event again; the
 * redrive must recognise the raw body and bring the event back.
 */
const { sqs } = testClients();
const LEASE_MS = 1_000;

let world: RedriveWorld;
let deps: RedriveDeps;
let store: EventStore;

beforeEach(async () => {
  world = await createRedriveWorld("stranded");
  ({ deps, store } = world);
});

/** Claims the event (the crashing run) and parks its raw body as the native redrive would. */
const strand = async (generation = 0) => {
  const envelope = anEnvelope();
  await store.claim({
    eventId: envelope.eventId,
    generation,
    worker: "crashing-worker",
    nowMs: world.now(),
    leaseMs: LEASE_MS,
    attemptBudget: 8,
    envelopeDigest: envelopeDigest(envelope),
    targetSummary: "http POST https://receiver.example.com/hooks/orders",
  });
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: world.deadLetterQueueUrl,
      MessageBody: JSON.stringify(envelope),
      MessageAttributes: scheduleToAttributes({ generation }),
    }),
  );
  return envelope;
};

describe("redrive of a crash-looped event", () => {
  it("lists a parked raw envelope as unprocessed, with its event id", async () => {
    const envelope = await strand();
    const listing = await listDeadLetters(deps.deadLetterQueue, { filter: {} }, deps.store);

    expect(listing).toEqual([
      expect.objectContaining({ eventId: envelope.eventId, reason: "unprocessed", generation: 0 }),
    ]);
  });

  it("brings a stranded event back once its lease has expired, with a new generation", async () => {
    const envelope = await strand();
    world.advance(LEASE_MS + 1);
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
    const [live] = await receiveRaw(sqs, world.internalQueueUrl);
    expect(scheduleFromAttributes(live?.MessageAttributes).generation).toBe(1);
    expect(await receiveRaw(sqs, world.deadLetterQueueUrl, { wait: 0 })).toEqual([]);
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
