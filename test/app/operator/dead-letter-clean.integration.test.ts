import { beforeEach, describe, expect, it } from "vitest";
import { cleanDeadLetters } from "../../../lib/app/operator/dead-letter-clean.js";
import { listDeadLetters } from "../../../lib/app/operator/dead-letter-scan.js";
import { DEAD_LETTER_KIND, DEAD_LETTER_VERSION } from "../../../lib/core/dead-letter.js";
import { envelopeDigest } from "../../../lib/core/envelope-digest.js";
import { QueueUnavailableError, StoreUnavailableError } from "../../../lib/core/errors.js";
import { EventStatus } from "../../../lib/core/status.js";
import { ANA_CALLER, countingCallerIdentity } from "../../support/counting-caller-identity.js";
import { deadLetterEvent } from "../../support/dead-letter-fixture.js";
import { anAttemptEntry, anEnvelope } from "../../support/factories.js";
import { createRedriveWorld, type RedriveWorld } from "../../support/redrive-world.js";

/*
 * `ricochet dlq clean` on the emulators: the copy of a delivered event goes (with an audit entry
 * on its record); the copy of an event that still needs a decision, and anything unreadable, stay.
 */
let world: RedriveWorld;

beforeEach(async () => {
  world = await createRedriveWorld("dlq-clean");
});

/** An event delivered on its first attempt that nonetheless left a copy in the queue. */
const deliveredWithLeftoverCopy = async () => {
  const envelope = anEnvelope();
  const claimed = await world.store.claim({
    eventId: envelope.eventId,
    generation: 0,
    worker: "w",
    nowMs: world.now(),
    leaseMs: 60_000,
    attemptBudget: 3,
    targetSummary: "http POST https://receiver.example.com",
    envelopeDigest: envelopeDigest(envelope),
  });
  if (claimed.kind !== "claimed") throw new Error(claimed.kind);
  await world.store.recordResult({
    eventId: envelope.eventId,
    worker: "w",
    generation: 0,
    newGeneration: 0,
    status: EventStatus.DELIVERED,
    claimed: claimed.record,
    entry: anAttemptEntry({ outcome: "success" }),
    nowMs: world.now(),
    retentionSeconds: 3600,
  });
  await world.dlq.send({
    kind: DEAD_LETTER_KIND,
    version: DEAD_LETTER_VERSION,
    reason: "unprocessed",
    eventId: envelope.eventId,
    body: JSON.stringify(envelope),
    attempts: 0,
    generation: 0,
    deadLetteredAt: new Date(world.now()).toISOString(),
  });
  return envelope;
};

/** What `dlq list` shows of the queue now. */
const leftInQueue = () =>
  listDeadLetters(world.dlq, { filter: {}, visibilitySeconds: 5 }, world.store);

const deps = () => ({
  deadLetterQueue: world.dlq,
  store: world.store,
  clock: world.now,
  scanVisibilitySeconds: 5,
});

describe("cleanDeadLetters", () => {
  it("removes only the copies of delivered events, and audits each removal on the record", async () => {
    const delivered = await deliveredWithLeftoverCopy();
    const stillDead = await deadLetterEvent(world.store, world.dlq);

    const report = await cleanDeadLetters(deps(), { dryRun: false, by: "operator-test" });

    expect(report.removed.map((r) => r.eventId)).toEqual([delivered.eventId]);
    expect(report.kept).toBe(1);
    const left = await leftInQueue();
    expect(left.map((m) => m.eventId)).toEqual([stillDead.eventId]);
    const record = await world.store.get(delivered.eventId);
    expect(record?.audit).toEqual([
      expect.objectContaining({
        by: "operator-test",
        action: "dead_letter_copy_removed",
        messageId: report.removed[0]?.messageId,
      }),
    ]);
  });

  it("names the caller AWS reports beside by on every removal, asking once per run", async () => {
    const delivered = [await deliveredWithLeftoverCopy(), await deliveredWithLeftoverCopy()];
    const { identity, lookups } = countingCallerIdentity();

    await cleanDeadLetters(
      { ...deps(), callerIdentity: identity },
      { dryRun: false, by: "operator-test" },
    );

    for (const { eventId } of delivered) {
      expect((await world.store.get(eventId))?.audit).toEqual([
        expect.objectContaining({ by: "operator-test", caller: ANA_CALLER }),
      ]);
    }
    expect(lookups()).toBe(1);
  });

  it("changes nothing in a dry run but reports the same removals", async () => {
    const delivered = await deliveredWithLeftoverCopy();

    const report = await cleanDeadLetters(deps(), { dryRun: true, by: "operator-test" });

    expect(report.removed.map((r) => r.eventId)).toEqual([delivered.eventId]);
    const left = await leftInQueue();
    expect(left.map((m) => m.eventId)).toEqual([delivered.eventId]);
    expect((await world.store.get(delivered.eventId))?.audit).toBeUndefined();
  });
});

describe("cleanDeadLetters when a write fails", () => {
  /** The queue as it is, except that deleting fails (`times` times, then works). */
  const deleteFailing = (times: number) => {
    let left = times;
    return {
      ...world.dlq,
      delete: async (receiptHandle: string) => {
        if (left > 0) {
          left -= 1;
          throw new QueueUnavailableError("SQS DeleteMessage failed: throttled");
        }
        await world.dlq.delete(receiptHandle);
      },
    };
  };

  it("records no removal when the delete fails, and exactly one once a later clean removes the copy", async () => {
    const delivered = await deliveredWithLeftoverCopy();

    const first = await cleanDeadLetters(
      { ...deps(), deadLetterQueue: deleteFailing(1) },
      { dryRun: false, by: "operator-test" },
    );
    expect(first.removed).toEqual([]);
    expect(first.failed).toEqual([
      expect.objectContaining({ error: expect.stringMatching(/throttled/) }),
    ]);
    expect(first.kept).toBe(0);
    expect((await world.store.get(delivered.eventId))?.audit).toBeUndefined();

    const second = await cleanDeadLetters(deps(), { dryRun: false, by: "operator-test" });
    expect(second.removed.map((r) => r.eventId)).toEqual([delivered.eventId]);
    expect((await world.store.get(delivered.eventId))?.audit).toEqual([
      expect.objectContaining({ action: "dead_letter_copy_removed", by: "operator-test" }),
    ]);
  });

  it("reports a removal whose audit entry could not be written, as removed and failed", async () => {
    const delivered = await deliveredWithLeftoverCopy();
    const store = {
      ...world.store,
      appendAudit: async () => {
        throw new StoreUnavailableError("DynamoDB UpdateItem failed: throttled");
      },
    };

    const report = await cleanDeadLetters({ ...deps(), store }, { dryRun: false, by: "ops" });

    expect(report.removed.map((r) => r.eventId)).toEqual([delivered.eventId]);
    expect(report.failed).toEqual([
      expect.objectContaining({
        error: expect.stringMatching(/^removed, but its audit entry was not written: .*throttled/),
      }),
    ]);
    expect(report.kept).toBe(0);
    const left = await leftInQueue();
    expect(left).toEqual([]);
  });
});

describe("cleanDeadLetters while another operator reads the queue", () => {
  it("writes a removal for a copy another reader received after the scan only if the copy is gone", async () => {
    const delivered = await deliveredWithLeftoverCopy();
    // The clean's hold on the copy runs out while it reads the record (a long queue, a slow
    // store), and a second operator's `dlq list` receives the copy meanwhile: the handle the
    // clean holds is outdated. SQS documents that a delete with it succeeds but may not delete
    // the message: fauxqs keeps the copy (and refuses the re-hold), moto deletes it. Either way
    // the audit must say what happened.
    const slowStore = {
      ...world.store,
      get: async (eventId: string) => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await listDeadLetters(world.dlq, { filter: {}, visibilitySeconds: 1 }, world.store);
        return world.store.get(eventId);
      },
    };

    const report = await cleanDeadLetters(
      { ...deps(), store: slowStore, scanVisibilitySeconds: 1 },
      { dryRun: false, by: "operator-test" },
    );

    const left = await leftInQueue();
    const audit = (await world.store.get(delivered.eventId))?.audit ?? [];
    if (left.length > 0) {
      expect(left.map((m) => m.eventId)).toEqual([delivered.eventId]);
      expect(audit).toEqual([]);
      expect(report.removed).toEqual([]);
      expect(report.failed).toEqual([expect.objectContaining({ messageId: left[0]?.messageId })]);
    } else {
      expect(audit.map((entry) => entry.action)).toEqual(["dead_letter_copy_removed"]);
      expect(report.removed.map((r) => r.eventId)).toEqual([delivered.eventId]);
    }
  });
});
