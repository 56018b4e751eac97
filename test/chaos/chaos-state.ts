import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import type { AwsClients } from "../../lib/adapters/aws-clients.js";
import { itemToRecord } from "../../lib/adapters/dynamo-record-item.js";
import { createSqsDeadLetterQueue } from "../../lib/adapters/sqs-dead-letter-queue.js";
import { RECORD_KEY } from "../../lib/contract/record-table.js";
import type { ReceivedDeadLetter } from "../../lib/core/ports.js";
import type { EventRecord } from "../../lib/core/record.js";

/** Every record of the table, by event id (a full scan: chaos tables are small). */
export const scanRecords = async (
  clients: AwsClients,
  tableName: string,
): Promise<Map<string, EventRecord>> => {
  const records = new Map<string, EventRecord>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await clients.documents.send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey, ConsistentRead: true }),
    );
    for (const item of page.Items ?? []) {
      // Targets' items share the table (their keys start with `#`; no event id can): the failure
      // counts are written with the breakers off too.
      if (String(item[RECORD_KEY]).startsWith("#")) continue;
      const record = itemToRecord(item);
      records.set(record.eventId, record);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return records;
};

/** A queue's approximate message counts. */
export interface QueueCounts {
  readonly visible: number;
  /** Received and not yet deleted, or hidden by ChangeMessageVisibility. */
  readonly inFlight: number;
  readonly delayed: number;
}

const queueCounts = async (clients: AwsClients, queueUrl: string): Promise<QueueCounts> => {
  const { Attributes } = await clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
        "ApproximateNumberOfMessagesDelayed",
      ],
    }),
  );
  return {
    visible: Number(Attributes?.ApproximateNumberOfMessages ?? 0),
    inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0),
    delayed: Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0),
  };
};

/** The counts of several queues added up (the orchestrator's two input queues). */
export const inputQueueCounts = async (
  clients: AwsClients,
  queueUrls: readonly string[],
): Promise<QueueCounts> => {
  const all = await Promise.all(queueUrls.map((url) => queueCounts(clients, url)));
  return all.reduce((sum, c) => ({
    visible: sum.visible + c.visible,
    inFlight: sum.inFlight + c.inFlight,
    delayed: sum.delayed + c.delayed,
  }));
};

/** Messages on a queue in any state. */
export const totalOf = (counts: QueueCounts): number =>
  counts.visible + counts.inFlight + counts.delayed;

/** Hidden long enough that a message read once is not read again during the collection. */
const COLLECT_VISIBILITY_SECONDS = 600;

/**
 * Reads every visible message off a queue (hiding each, deleting none), so the end state can be
 * judged on what is actually left. Call it once nothing is in flight or delayed.
 */
export const collectMessages = async (
  clients: AwsClients,
  queueUrl: string,
): Promise<ReceivedDeadLetter[]> => {
  // The dead-letter adapter's receive reads any queue's messages with all their attributes: the
  // schedule, and on Ricochet's dead-letter copies the summary that says which event and why.
  const queue = createSqsDeadLetterQueue({ sqs: clients.sqs, queueUrl });
  const collected: ReceivedDeadLetter[] = [];
  let emptyReceives = 0;
  while (emptyReceives < 2) {
    const batch = await queue.receive({
      maxMessages: 10,
      visibilityTimeoutSeconds: COLLECT_VISIBILITY_SECONDS,
      waitSeconds: 0,
    });
    emptyReceives = batch.length === 0 ? emptyReceives + 1 : 0;
    collected.push(...batch);
  }
  return collected;
};
