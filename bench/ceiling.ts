import { ConditionalCheckFailedException, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from "@aws-sdk/client-sqs";
import type { AwsClients } from "../lib/adapters/aws-clients.js";
import { createQueuePair, createTable } from "./support/resources.js";

/** The emulators' raw rate for what one Ricochet attempt needs, with nothing else in the way. */
export interface CeilingFigures {
  /** Messages taken through receive → claim → record → delete per wall second. */
  readonly attemptsPerSecond: number;
  readonly messages: number;
  readonly wallMs: number;
}

/**
 * Measures the ceiling: `messages` already on a queue are received in batches by `pollers`
 * concurrent loops; for each message two conditional UpdateItems (a claim, then a result write
 * conditioned on the claim) run, then the batch is deleted with DeleteMessageBatch — exactly the
 * AWS calls of one successful Ricochet attempt, minus the target call and Ricochet's own code.
 */
export const measureCeiling = async (
  clients: AwsClients,
  options: { readonly messages: number; readonly pollers: number; readonly batchSize: number },
): Promise<CeilingFigures> => {
  const { queueUrl } = await createQueuePair(clients.sqs, "bench-ceiling", {
    maxReceiveCount: 10,
    visibilityTimeoutSeconds: 30,
  });
  const tableName = await createTable(clients.dynamodb, "bench-ceiling", { key: "eventId" });
  for (let start = 0; start < options.messages; start += 10) {
    const count = Math.min(10, options.messages - start);
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Array.from({ length: count }, (_, i) => ({
          Id: String(i),
          MessageBody: `ceiling-${start + i}`,
        })),
      }),
    );
  }

  const claimThenRecord = async (eventId: string, worker: string): Promise<void> => {
    const key = { eventId: { S: eventId } };
    try {
      await clients.dynamodb.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: "SET leaseOwner = :w, attempts = if_not_exists(attempts, :zero) + :one",
          ConditionExpression: "attribute_not_exists(leaseOwner) OR leaseOwner = :w",
          ExpressionAttributeValues: {
            ":w": { S: worker },
            ":zero": { N: "0" },
            ":one": { N: "1" },
          },
        }),
      );
      await clients.dynamodb.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: "SET #s = :done REMOVE leaseOwner",
          ConditionExpression: "leaseOwner = :w",
          ExpressionAttributeNames: { "#s": "status" },
          ExpressionAttributeValues: { ":w": { S: worker }, ":done": { S: "delivered" } },
        }),
      );
    } catch (error) {
      // A redelivered copy loses the claim race: the work was still done once.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  };

  let done = 0;
  let lastDoneAt = 0;
  const startedAt = Date.now();
  const loop = async (worker: string): Promise<void> => {
    while (done < options.messages) {
      const { Messages = [] } = await clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(10, options.batchSize),
          WaitTimeSeconds: 1,
        }),
      );
      if (Messages.length === 0) continue;
      await Promise.all(Messages.map((m) => claimThenRecord(m.Body ?? "", worker)));
      await clients.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
        }),
      );
      done += Messages.length;
      lastDoneAt = Date.now();
    }
  };
  await Promise.all(Array.from({ length: options.pollers }, (_, i) => loop(`ceiling-${i}`)));
  // Up to the last message done: the loops' final empty long poll is idle time, not work (the
  // contenders' wall time likewise ends at the last delivery).
  const wallMs = Math.max(1, lastDoneAt - startedAt);
  return { attemptsPerSecond: (done / wallMs) * 1000, messages: done, wallMs };
};
