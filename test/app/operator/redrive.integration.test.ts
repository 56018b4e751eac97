import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { beforeEach, describe, expect, it } from "vitest";
import { scheduleFromAttributes } from "../../../lib/adapters/message-schedule.js";
import { redrive } from "../../../lib/app/operator/redrive.js";
import type { DeadLetterMessage } from "../../../lib/core/dead-letter.js";
import type { Envelope } from "../../../lib/core/envelope.js";
import { InvalidRequestError, StoreUnavailableError } from "../../../lib/core/errors.js";
import { DEFAULT_POLICY } from "../../../lib/core/policy.js";
import type { DeadLetterQueue, EventStore } from "../../../lib/core/ports.js";
import { receiveRaw } from "../../adapters/sqs-test-support.js";
import { ANA_CALLER, countingCallerIdentity } from "../../support/counting-caller-identity.js";
import { aDeadLetterMessage, deadLetterEvent } from "../../support/dead-letter-fixture.js";
import { anEnvelope, FIXED_NOW_MS } from "../../support/factories.js";
import { testClients } from "../../support/local-aws.js";
import { createRedriveWorld, type RedriveWorld } from "../../support/redrive-world.js";

const { sqs } = testClients();

let world: RedriveWorld;

beforeEach(async () => {
  world = await createRedriveWorld("redrive");
});

const deadLetter = (envelope?: Envelope): Promise<Envelope> =>
  deadLetterEvent(world.store, world.dlq, envelope);

/** Everything on a queue, left hidden so a second read does not see it twice. */
const drain = async (queueUrl: string) => {
  const all = [];
  for (;;) {
    const page = await receiveRaw(sqs, queueUrl, { visibility: 300, wait: 0 });
    if (page.length === 0) return all;
    all.push(...page);
  }
};

const ingressMessages = async () =>
  (await drain(world.internalQueueUrl)).map((m) => ({
    eventId: (JSON.parse(m.Body ?? "{}") as Envelope).eventId,
    generation: scheduleFromAttributes(m.MessageAttributes).generation,
  }));

const sortBy = <T extends { eventId: string }>(list: T[]): T[] =>
  [...list].sort((a, b) => a.eventId.localeCompare(b.eventId));

describe("redrive", () => {
  it("dates the entry when the move happens, after a slow caller lookup, not before it", async () => {
    const { eventId } = await deadLetter();
    const slowLookup = countingCallerIdentity(async () => {
      world.advance(5_000);
      return ANA_CALLER;
    });

    await redrive({ ...world.deps, callerIdentity: slowLookup.identity }, { by: "ops" });

    const [entry] = (await world.store.get(eventId))?.redrives ?? [];
    expect(entry?.at).toBe(new Date(world.now()).toISOString());
  });

  it("names the caller AWS reports beside by, asking once per run and not at all in a dry run", async () => {
    const events = [await deadLetter(), await deadLetter()];
    const { identity, lookups } = countingCallerIdentity();
    const deps = { ...world.deps, callerIdentity: identity };

    await redrive(deps, { dryRun: true, by: "ops" });
    expect(lookups()).toBe(0);
    await redrive(deps, { by: "ops" });

    for (const { eventId } of events) {
      expect((await world.store.get(eventId))?.redrives).toEqual([
        expect.objectContaining({ by: "ops", caller: ANA_CALLER }),
      ]);
    }
    expect(lookups()).toBe(1);
  });

  it("dry run moves nothing and lists exactly what a real run then moves", async () => {
    const events = [await deadLetter(), await deadLetter(), await deadLetter()];
    const dry = await redrive(world.deps, { dryRun: true, by: "ops" });
    expect(dry.dryRun).toBe(true);
    expect(sortBy(dry.moved).map((m) => m.eventId)).toEqual(events.map((e) => e.eventId).sort());
    for (const e of events)
      expect((await world.store.get(e.eventId))?.status).toBe("dead_lettered");
    // Released at once: a real run sees every message straight away.
    const real = await redrive(world.deps, { by: "ops" });
    expect(real.dryRun).toBe(false);
    expect(sortBy(real.moved)).toEqual(sortBy(dry.moved));
    expect(real.failed).toEqual([]);
    expect(sortBy(await ingressMessages())).toEqual(
      sortBy(events.map((e) => ({ eventId: e.eventId, generation: 1 }))),
    );
    expect(await drain(world.deadLetterQueueUrl)).toEqual([]);
    for (const e of events) expect((await world.store.get(e.eventId))?.status).toBe("pending");
  });

  it("moves only the events named and leaves the rest in the dead-letter queue", async () => {
    const [chosen, other1, other2] = [await deadLetter(), await deadLetter(), await deadLetter()];
    const report = await redrive(world.deps, { eventIds: [chosen.eventId], by: "ops" });
    expect(report.moved).toEqual([{ eventId: chosen.eventId, generation: 1, attemptBudget: 2 }]);
    expect(await ingressMessages()).toEqual([{ eventId: chosen.eventId, generation: 1 }]);
    const left = (await drain(world.deadLetterQueueUrl)).map(
      (m) => (JSON.parse(m.Body ?? "{}") as DeadLetterMessage).eventId,
    );
    expect(left.sort()).toEqual([other1.eventId, other2.eventId].sort());
  });

  it.each([
    { request: { resetAttempts: true }, budget: 1 + DEFAULT_POLICY.maxAttempts },
    { request: { extraAttempts: 3 }, budget: 4 },
    { request: {}, budget: 2 },
  ])(
    "grants budget $budget for $request and audits it on the record",
    async ({ request, budget }) => {
      const event = await deadLetter();
      const report = await redrive(world.deps, { ...request, by: "alice", why: "receiver fixed" });
      expect(report.moved).toEqual([
        { eventId: event.eventId, generation: 1, attemptBudget: budget },
      ]);
      const record = await world.store.get(event.eventId);
      expect(record).toMatchObject({ status: "pending", generation: 1, attemptBudget: budget });
      expect(record?.redrives).toEqual([
        {
          at: new Date(FIXED_NOW_MS).toISOString(),
          by: "alice",
          reason: "receiver fixed",
          previousStatus: "dead_lettered",
          previousAttempts: 1,
          attemptBudget: budget,
        },
      ]);
    },
  );

  it("uses the envelope's own maxAttempts for a fresh budget", async () => {
    const event = await deadLetter(anEnvelope({ policy: { maxAttempts: 3 } }));
    const report = await redrive(world.deps, { resetAttempts: true, by: "ops" });
    expect(report.moved).toEqual([{ eventId: event.eventId, generation: 1, attemptBudget: 4 }]);
  });

  it("rejects a request asking for both a reset and extra attempts, touching nothing", async () => {
    await deadLetter();
    await expect(
      redrive(world.deps, { resetAttempts: true, extraAttempts: 2, by: "ops" }),
    ).rejects.toBeInstanceOf(InvalidRequestError);
    expect(await drain(world.deadLetterQueueUrl)).toHaveLength(1);
  });

  it("leaves an unparsable message in the dead-letter queue and reports it", async () => {
    const event = await deadLetter();
    const { MessageId } = await sqs.send(
      new SendMessageCommand({ QueueUrl: world.deadLetterQueueUrl, MessageBody: "not json" }),
    );
    const report = await redrive(world.deps, { by: "ops" });
    expect(report.moved.map((m) => m.eventId)).toEqual([event.eventId]);
    expect(report.failed).toEqual([
      { messageId: MessageId, error: expect.stringMatching(/not a Ricochet/) },
    ]);
    expect((await drain(world.deadLetterQueueUrl)).map((m) => m.Body)).toEqual(["not json"]);
  });

  it("redrives two copies of one event once and deletes the second copy as a duplicate", async () => {
    const event = await deadLetter();
    const [copy] = await receiveRaw(sqs, world.deadLetterQueueUrl, { visibility: 0 });
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: world.deadLetterQueueUrl,
        MessageBody: copy?.Body,
        MessageAttributes: copy?.MessageAttributes,
      }),
    );
    const report = await redrive(world.deps, { by: "ops" });
    expect(report.moved).toHaveLength(1);
    expect(report.skipped).toEqual([
      { eventId: event.eventId, messageId: expect.any(String), reason: "duplicate" },
    ]);
    expect(await ingressMessages()).toEqual([{ eventId: event.eventId, generation: 1 }]);
    expect(await drain(world.deadLetterQueueUrl)).toEqual([]);
  });

  it("spaces moves by the rate limit", async () => {
    await Promise.all([deadLetter(), deadLetter(), deadLetter()]);
    const waits: number[] = [];
    const sleep = world.deps.sleep;
    const report = await redrive(
      {
        ...world.deps,
        sleep: async (ms) => {
          waits.push(ms);
          await sleep(ms);
        },
      },
      { ratePerSecond: 4, by: "ops" },
    );
    expect(report.moved).toHaveLength(3);
    expect(waits).toEqual([250, 250]);
  });

  it("interrupted after sending: the next run completes it, with one live generation", async () => {
    const event = await deadLetter();
    const crashingStore: EventStore = {
      ...world.store,
      recordRedrive: async () => {
        throw new StoreUnavailableError("simulated crash after the send");
      },
    };
    const first = await redrive({ ...world.deps, store: crashingStore }, { by: "ops" });
    expect(first.moved).toEqual([]);
    expect(first.failed.map((f) => f.eventId)).toEqual([event.eventId]);
    expect((await world.store.get(event.eventId))?.status).toBe("dead_lettered");

    const second = await redrive(world.deps, { by: "ops" });
    expect(second.moved).toEqual([{ eventId: event.eventId, generation: 1, attemptBudget: 2 }]);
    // Two sends, one generation: the orchestrator's generation check makes them one event.
    expect(await ingressMessages()).toEqual([
      { eventId: event.eventId, generation: 1 },
      { eventId: event.eventId, generation: 1 },
    ]);
    expect(await world.store.get(event.eventId)).toMatchObject({
      status: "pending",
      generation: 1,
    });
    expect(await drain(world.deadLetterQueueUrl)).toEqual([]);
  });

  it("interrupted after recording: the next run only deletes the leftover copy", async () => {
    const event = await deadLetter();
    const crashingDlq: DeadLetterQueue = {
      ...world.dlq,
      delete: async (receiptHandle) => {
        // A crash here leaves the copy hidden until its visibility runs out; skip the wait.
        await world.dlq.changeVisibility(receiptHandle, 0);
        throw new Error("simulated crash before the delete");
      },
    };
    const first = await redrive({ ...world.deps, deadLetterQueue: crashingDlq }, { by: "ops" });
    expect(first.moved.map((m) => m.eventId)).toEqual([event.eventId]);

    const second = await redrive(world.deps, { by: "ops" });
    expect(second.moved).toEqual([]);
    expect(second.skipped).toEqual([
      { eventId: event.eventId, messageId: expect.any(String), reason: "already redriven" },
    ]);
    expect(await ingressMessages()).toEqual([{ eventId: event.eventId, generation: 1 }]);
    expect(await drain(world.deadLetterQueueUrl)).toEqual([]);
    expect((await world.store.get(event.eventId))?.redrives).toHaveLength(1);
  });
});

describe("redrive of a copy the record does not bear out", () => {
  /** A copy as a forger with SendMessage on the queue writes one: a plausible summary, its own body. */
  const forge = async (envelope: Envelope, overrides: Partial<DeadLetterMessage> = {}) => {
    await world.dlq.send(
      aDeadLetterMessage(envelope, { deadLetteredAt: "2030-01-01T03:00:00.000Z", ...overrides }),
    );
  };

  it("skips a forged copy of an event Ricochet never accepted, saying why, and moves nothing", async () => {
    const forged = anEnvelope({ target: { type: "http", url: "https://forger.example/x" } });
    await forge(forged);

    const report = await redrive(world.deps, { reasons: ["exhausted"], by: "alice" });

    expect(report.moved).toEqual([]);
    expect(report.skipped).toEqual([
      expect.objectContaining({
        eventId: forged.eventId,
        reason: expect.stringMatching(/^unverified .*: Ricochet has no record of event/),
      }),
    ]);
    expect(await ingressMessages()).toEqual([]);
    expect(await world.store.get(forged.eventId)).toBeUndefined();
    // Left in the queue, for the operator to look at.
    expect(await drain(world.deadLetterQueueUrl)).toHaveLength(1);
  });

  it("skips a copy whose summary contradicts the record, and moves the genuine one", async () => {
    const event = await deadLetter();
    await forge(event, { attempts: 8, generation: 0 });

    const report = await redrive(world.deps, { by: "alice" });

    expect(report.moved).toEqual([{ eventId: event.eventId, generation: 1, attemptBudget: 2 }]);
    // Met before the genuine copy, the forged one is skipped as unverified; after it, it is a
    // duplicate of the event just moved. Either way only the genuine copy moved the event.
    expect(report.failed).toEqual([]);
    expect(report.skipped).toEqual([
      expect.objectContaining({
        reason: expect.stringMatching(/^(duplicate|unverified .*no attempt 8 finished at)/),
      }),
    ]);
    expect(await ingressMessages()).toEqual([{ eventId: event.eventId, generation: 1 }]);
  });

  it("moves an unverified copy only when the operator includes unverified copies", async () => {
    const forged = anEnvelope();
    await forge(forged, { generation: 0 });

    const report = await redrive(world.deps, { includeUnverified: true, by: "alice" });

    expect(report.moved).toEqual([
      expect.objectContaining({ eventId: forged.eventId, generation: 1 }),
    ]);
    expect(await ingressMessages()).toEqual([{ eventId: forged.eventId, generation: 1 }]);
  });
});
