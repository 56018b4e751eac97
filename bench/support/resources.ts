import { randomUUID } from "node:crypto";
import {
  BillingMode,
  CreateTableCommand,
  type DynamoDBClient,
  KeyType,
  ScalarAttributeType,
  waitUntilTableExists,
} from "@aws-sdk/client-dynamodb";
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { recordTableDefinition } from "../../lib/adapters/dynamo-record-item.js";

/** A uniquely named resource, so rounds and contenders never share state. */
const benchName = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

/**
 * The role a bench queue plays for its contender (`in`, `internal` or `dlq`): the last part of
 * its name, which {@link createQueuePair} and {@link createRicochetQueues} put there.
 */
export const queueRoleOf = (queueUrl: string): string => {
  const name = queueUrl.slice(queueUrl.lastIndexOf("/") + 1);
  return name.slice(name.lastIndexOf("-") + 1);
};

export interface QueuePair {
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
}

/** Ricochet's queues: the producers' ingress queue and its own internal queue, one DLQ. */
export interface RicochetQueues extends QueuePair {
  readonly internalQueueUrl: string;
}

interface QueueOptions {
  readonly maxReceiveCount: number;
  readonly visibilityTimeoutSeconds: number;
}

/**
 * A uniquely named dead-letter queue, and a function that makes input queues (named after it)
 * redriving into it natively.
 */
const withDeadLetterQueue = async (sqs: SQSClient, prefix: string, options: QueueOptions) => {
  const name = benchName(prefix);
  const dead = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  if (dead.QueueUrl === undefined) throw new Error("CreateQueue returned no URL");
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: dead.QueueUrl, AttributeNames: ["QueueArn"] }),
  );
  const deadLetterTargetArn = Attributes?.QueueArn;
  if (deadLetterTargetArn === undefined) throw new Error("no QueueArn for the dead-letter queue");
  const inputQueue = async (suffix: string): Promise<string> => {
    const created = await sqs.send(
      new CreateQueueCommand({
        QueueName: `${name}-${suffix}`,
        Attributes: {
          VisibilityTimeout: String(options.visibilityTimeoutSeconds),
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn,
            maxReceiveCount: options.maxReceiveCount,
          }),
        },
      }),
    );
    if (created.QueueUrl === undefined) throw new Error("CreateQueue returned no URL");
    return created.QueueUrl;
  };
  return { deadLetterQueueUrl: dead.QueueUrl, inputQueue };
};

/**
 * An ingress queue with a native redrive into its dead-letter queue after `maxReceiveCount`
 * receives, and a default visibility timeout (the retry delay of redelivery-based consumers).
 */
export const createQueuePair = async (
  sqs: SQSClient,
  prefix: string,
  options: QueueOptions,
): Promise<QueuePair> => {
  const queues = await withDeadLetterQueue(sqs, prefix, options);
  return { queueUrl: await queues.inputQueue("in"), deadLetterQueueUrl: queues.deadLetterQueueUrl };
};

/** Ricochet's queues as the stack makes them: both input queues alike, one dead-letter queue. */
export const createRicochetQueues = async (
  sqs: SQSClient,
  prefix: string,
  options: QueueOptions,
): Promise<RicochetQueues> => {
  const queues = await withDeadLetterQueue(sqs, prefix, options);
  const queueUrl = await queues.inputQueue("in");
  const internalQueueUrl = await queues.inputQueue("internal");
  return { queueUrl, internalQueueUrl, deadLetterQueueUrl: queues.deadLetterQueueUrl };
};

/** An on-demand table with a string partition key, optionally with Ricochet's status index. */
export const createTable = async (
  dynamodb: DynamoDBClient,
  prefix: string,
  options: { readonly key: string; readonly statusIndex?: boolean },
): Promise<string> => {
  const tableName = benchName(prefix);
  // Ricochet's table is exactly the stack's (lib/adapters/dynamo-record-item.ts), sparse index
  // included; the Powertools baseline's is the plain keyed table its persistence layer expects.
  await dynamodb.send(
    new CreateTableCommand(
      options.statusIndex === true
        ? recordTableDefinition(tableName)
        : {
            TableName: tableName,
            BillingMode: BillingMode.PAY_PER_REQUEST,
            AttributeDefinitions: [
              { AttributeName: options.key, AttributeType: ScalarAttributeType.S },
            ],
            KeySchema: [{ AttributeName: options.key, KeyType: KeyType.HASH }],
          },
    ),
  );
  await waitUntilTableExists(
    { client: dynamodb, maxWaitTime: 30, minDelay: 1, maxDelay: 2 },
    { TableName: tableName },
  );
  return tableName;
};
