import { randomUUID } from "node:crypto";
import { CreateTableCommand, waitUntilTableExists } from "@aws-sdk/client-dynamodb";
import { CreateQueueCommand, GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import type { AwsClients } from "../../lib/adapters/aws-clients.js";
import { recordTableDefinition } from "../../lib/adapters/dynamo-record-item.js";

/** The ingress queue's native redrive, as in the stack: receives before SQS parks a message. */
export const CHAOS_MAX_RECEIVE_COUNT = 10;

export interface ChaosResources {
  readonly ingressQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly tableName: string;
}

const required = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`${what} missing from the emulator's answer`);
  return value;
};

/**
 * Creates, with plain SDK calls, a uniquely named queue pair and table like the stack's: an
 * ingress queue whose native redrive parks a message in the dead-letter queue after
 * {@link CHAOS_MAX_RECEIVE_COUNT} receives, and the attempt table keyed by `eventId` with the
 * `byStatus` index.
 */
export const createChaosResources = async (
  clients: AwsClients,
  options: { readonly prefix: string; readonly visibilityTimeoutSeconds: number },
): Promise<ChaosResources> => {
  const name = `${options.prefix}-${randomUUID().slice(0, 8)}`;
  const dead = await clients.sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const deadLetterQueueUrl = required(dead.QueueUrl, "dead-letter QueueUrl");
  const { Attributes } = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: deadLetterQueueUrl, AttributeNames: ["QueueArn"] }),
  );
  const ingress = await clients.sqs.send(
    new CreateQueueCommand({
      QueueName: `${name}-ingress`,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: required(Attributes?.QueueArn, "QueueArn"),
          maxReceiveCount: CHAOS_MAX_RECEIVE_COUNT,
        }),
      },
    }),
  );
  const tableName = `${name}-events`;
  await clients.dynamodb.send(new CreateTableCommand(recordTableDefinition(tableName)));
  await waitUntilTableExists(
    { client: clients.dynamodb, maxWaitTime: 30, minDelay: 1, maxDelay: 2 },
    { TableName: tableName },
  );
  return {
    ingressQueueUrl: required(ingress.QueueUrl, "ingress QueueUrl"),
    deadLetterQueueUrl,
    tableName,
  };
};
