import { randomUUID } from "node:crypto";
import { CreateTableCommand, waitUntilTableExists } from "@aws-sdk/client-dynamodb";
import { CreateQueueCommand, GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import type { AwsClients } from "../../lib/adapters/aws-clients.js";
import { recordTableDefinition } from "../../lib/adapters/dynamo-record-item.js";

export interface ChaosResources {
  /** Where producers send (the chaos producer, honest or not). */
  readonly ingressQueueUrl: string;
  /** Ricochet's own queue: retries, hops and redrives; its attributes are believed. */
  readonly internalQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly tableName: string;
}

/** Both queues the orchestrator reads, in the order the end-of-run checks list them. */
export const inputQueuesOf = (resources: ChaosResources): readonly string[] => [
  resources.ingressQueueUrl,
  resources.internalQueueUrl,
];

const required = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`${what} missing from the emulator's answer`);
  return value;
};

/**
 * Creates, with plain SDK calls, uniquely named queues and a table like the stack's: the ingress
 * queue and the internal queue, whose native redrive both park a message in the dead-letter queue
 * after `maxReceiveCount` receives, and the attempt table keyed by `eventId` with the `byStatus`
 * index.
 */
export const createChaosResources = async (
  clients: AwsClients,
  options: {
    readonly prefix: string;
    readonly visibilityTimeoutSeconds: number;
    readonly maxReceiveCount: number;
  },
): Promise<ChaosResources> => {
  const name = `${options.prefix}-${randomUUID().slice(0, 8)}`;
  const dead = await clients.sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const deadLetterQueueUrl = required(dead.QueueUrl, "dead-letter QueueUrl");
  const { Attributes } = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: deadLetterQueueUrl, AttributeNames: ["QueueArn"] }),
  );
  const redrivePolicy = JSON.stringify({
    deadLetterTargetArn: required(Attributes?.QueueArn, "QueueArn"),
    maxReceiveCount: options.maxReceiveCount,
  });
  // Both input queues alike, as the stack makes them: same visibility timeout, same safety net.
  const inputQueue = async (suffix: string): Promise<string> => {
    const created = await clients.sqs.send(
      new CreateQueueCommand({
        QueueName: `${name}-${suffix}`,
        Attributes: {
          VisibilityTimeout: String(options.visibilityTimeoutSeconds),
          RedrivePolicy: redrivePolicy,
        },
      }),
    );
    return required(created.QueueUrl, `${suffix} QueueUrl`);
  };
  const tableName = `${name}-events`;
  await clients.dynamodb.send(new CreateTableCommand(recordTableDefinition(tableName)));
  await waitUntilTableExists(
    { client: clients.dynamodb, maxWaitTime: 30, minDelay: 1, maxDelay: 2 },
    { TableName: tableName },
  );
  return {
    ingressQueueUrl: await inputQueue("ingress"),
    internalQueueUrl: await inputQueue("internal"),
    deadLetterQueueUrl,
    tableName,
  };
};
