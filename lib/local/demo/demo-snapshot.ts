import { GetQueueAttributesCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { type DynamoDBDocumentClient, paginateScan } from "@aws-sdk/lib-dynamodb";
import type { EventStatus } from "../../core/status.js";

/** The fields of a record the demo shows and counts. */
export interface RecordView {
  readonly eventId: string;
  readonly status: EventStatus;
  readonly attempts: number;
  readonly nextAttemptAt?: string | undefined;
  readonly redrives: number;
}

/** What the demo sees at one instant: every record, and the messages still on the ingress queue. */
export interface DemoSnapshot {
  readonly records: ReadonlyMap<string, RecordView>;
  /** Visible + in flight + delayed messages on the ingress queue. */
  readonly liveMessages: number;
  readonly takenAtMs: number;
}

const LIVE_COUNTS = [
  "ApproximateNumberOfMessages",
  "ApproximateNumberOfMessagesNotVisible",
  "ApproximateNumberOfMessagesDelayed",
] as const;

/** Messages on a queue in any state: visible, received but not deleted, and delayed. */
const liveMessageCount = async (sqs: SQSClient, queueUrl: string): Promise<number> => {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...LIVE_COUNTS] }),
  );
  return LIVE_COUNTS.reduce((sum, name) => sum + Number(Attributes?.[name] ?? 0), 0);
};

/** Reads every record of the (local, small) table, and the ingress queue's live messages. */
export const takeSnapshot = async (deps: {
  readonly documents: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly tableName: string;
  readonly ingressQueueUrl: string;
}): Promise<DemoSnapshot> => {
  const records = new Map<string, RecordView>();
  const pages = paginateScan(
    { client: deps.documents },
    {
      TableName: deps.tableName,
      ProjectionExpression: "eventId, #s, attempts, nextAttemptAt, redrives",
      ExpressionAttributeNames: { "#s": "status" },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const eventId = String(item.eventId);
      records.set(eventId, {
        eventId,
        status: item.status as EventStatus,
        attempts: Number(item.attempts ?? 0),
        nextAttemptAt: typeof item.nextAttemptAt === "string" ? item.nextAttemptAt : undefined,
        redrives: Array.isArray(item.redrives) ? item.redrives.length : 0,
      });
    }
  }
  const liveMessages = await liveMessageCount(deps.sqs, deps.ingressQueueUrl);
  return { records, liveMessages, takenAtMs: Date.now() };
};
