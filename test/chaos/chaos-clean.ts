import { setTimeout as sleep } from "node:timers/promises";
import type { AwsClients } from "../../lib/adapters/aws-clients.js";
import { createDynamoEventStore } from "../../lib/adapters/dynamo-event-store.js";
import { createSqsDeadLetterQueue } from "../../lib/adapters/sqs-dead-letter-queue.js";
import { type CleanReport, cleanDeadLetters } from "../../lib/app/operator/dead-letter-clean.js";
import { listDeadLetters } from "../../lib/app/operator/dead-letter-scan.js";
import { QueueUnavailableError } from "../../lib/core/errors.js";
import type { DeadLetterQueue, EventStore, ReceivedDeadLetter } from "../../lib/core/ports.js";
import { randomInt } from "../../lib/core/random.js";
import { streamFor } from "../support/random-streams.js";

/*
 * `ricochet dlq clean` at the end of a chaos run, on the emulators, as an operator would meet it
 * (issue #31, findings 8 and the outdated receipt handle): the first clean's deletes fail for a
 * seeded share of copies, its record reads are sometimes slower than its scan's hold, and a
 * second operator's `dlq list` runs beside it; then the clean is run again. What each clean
 * received is kept, so the judge can count what was really removed against the audit entries.
 */

/** Who the chaos run's operator is, in the audit entries. */
const CHAOS_OPERATOR = "chaos-operator";
/** Share of the first clean's deletes that fail (throttled). */
const DELETE_FAULT_SHARE = 0.3;
/** The clean's hold on the copies it scanned: short, so that slow reads outlast it. */
const SCAN_VISIBILITY_SECONDS = 1;
const MAX_READ_DELAY_MS = 1_500;
const LISTS = 3;
const PAUSE_BETWEEN_LISTS_MS = 700;

/** What the clean-ups received and reported. */
export interface ChaosCleanResult {
  /** Every copy a clean run received, by message id. */
  readonly received: ReadonlyMap<string, ReceivedDeadLetter>;
  /** Copies a clean reported failed: they may be gone without an entry (its write failed). */
  readonly excused: ReadonlySet<string>;
  readonly reports: readonly CleanReport[];
}

const withFaults = (
  queue: DeadLetterQueue,
  received: Map<string, ReceivedDeadLetter>,
  failDelete: () => boolean,
): DeadLetterQueue => ({
  ...queue,
  receive: async (options) => {
    const page = await queue.receive(options);
    for (const copy of page) received.set(copy.messageId, copy);
    return page;
  },
  delete: async (receiptHandle) => {
    if (failDelete())
      throw new QueueUnavailableError("SQS DeleteMessage failed: throttled (chaos)");
    await queue.delete(receiptHandle);
  },
});

const slowReads = (store: EventStore, delayMs: () => number): EventStore => ({
  ...store,
  get: async (eventId) => {
    await sleep(delayMs());
    return store.get(eventId);
  },
});

/**
 * What the clean-ups removed, given the queue's contents read after them (`left`): the copies a
 * clean received that are gone. Nothing else deletes from the dead-letter queue once the workers
 * have stopped.
 */
export const removedBy = (
  result: ChaosCleanResult,
  left: readonly ReceivedDeadLetter[],
): { readonly removed: ReceivedDeadLetter[]; readonly excused: ReadonlySet<string> } => {
  const present = new Set(left.map((m) => m.messageId));
  return {
    removed: [...result.received.values()].filter((m) => !present.has(m.messageId)),
    excused: result.excused,
  };
};

/** Two `dlq clean` runs, the first under faults and beside a second operator's listings. */
export const cleanUnderFaults = async (options: {
  readonly clients: AwsClients;
  readonly deadLetterQueueUrl: string;
  readonly tableName: string;
  readonly seed: number;
}): Promise<ChaosCleanResult> => {
  const queue = createSqsDeadLetterQueue({
    sqs: options.clients.sqs,
    queueUrl: options.deadLetterQueueUrl,
  });
  const store = createDynamoEventStore({
    doc: options.clients.documents,
    tableName: options.tableName,
  });
  const random = streamFor(options.seed, "chaos-clean");
  const received = new Map<string, ReceivedDeadLetter>();
  const excused = new Set<string>();
  const reports: CleanReport[] = [];
  for (const faulty of [true, false]) {
    const clean = cleanDeadLetters(
      {
        deadLetterQueue: withFaults(queue, received, () => faulty && random() < DELETE_FAULT_SHARE),
        store: faulty ? slowReads(store, () => randomInt(random, 0, MAX_READ_DELAY_MS)) : store,
        clock: Date.now,
        scanVisibilitySeconds: SCAN_VISIBILITY_SECONDS,
      },
      { dryRun: false, by: CHAOS_OPERATOR, reason: "chaos" },
    );
    const lists = async () => {
      for (let n = 0; faulty && n < LISTS; n += 1) {
        await listDeadLetters(queue, { filter: {}, visibilitySeconds: 1 }, store);
        await sleep(PAUSE_BETWEEN_LISTS_MS);
      }
    };
    const [report] = await Promise.all([clean, lists()]);
    reports.push(report);
    for (const failure of report.failed) excused.add(failure.messageId);
    // The second operator's listings hid copies from the first clean's scan: wait them out.
    await sleep(SCAN_VISIBILITY_SECONDS * 1000 + 500);
  }
  return { received, excused, reports };
};
