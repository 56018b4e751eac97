import { randomUUID } from "node:crypto";
import { CreateTableCommand, waitUntilTableExists } from "@aws-sdk/client-dynamodb";
import { CreateQueueCommand, GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { inject } from "vitest";
import {
  type AwsClientMiddleware,
  type AwsClients,
  createAwsClients,
  type LocalAwsTarget,
} from "../../lib/adapters/aws-clients.js";
import { recordTableDefinition } from "../../lib/adapters/dynamo-record-item.js";
import { LOCAL_CREDENTIALS } from "../../lib/contract/local-identity.js";
import { STATUS_INDEX as STORE_STATUS_INDEX } from "../../lib/contract/record-table.js";
import "../setup/provided-context.js";

/** The ingress queue's native redrive: how many receives before SQS moves a message itself. */
export const TEST_MAX_RECEIVE_COUNT = 10;

/** The local AWS the global setup started (test/setup/global-setup.ts). */
export const localAws = (): LocalAwsTarget => {
  const local = inject("localAws");
  if (local === undefined) {
    throw new Error(
      "local AWS is not running: is test/setup/global-setup.ts in vitest globalSetup, and RICOCHET_LOCAL_AWS not off?",
    );
  }
  return local;
};

let shared: AwsClients | undefined;

/** Options of {@link testClients}. */
export interface TestClientOptions {
  readonly middleware?: readonly AwsClientMiddleware[];
  /** Where the Lambda client sends invocations (a loopback stand-in; no emulator runs Lambda). */
  readonly lambdaEndpoint?: string;
}

/**
 * SDK clients for the local emulators. Without options, one set shared by the test file; with
 * middleware (a request counter, a fault injector) or a Lambda endpoint, a fresh set the caller
 * should `destroy()`.
 */
export const testClients = (options: TestClientOptions = {}) => {
  const build = () =>
    createAwsClients({
      endpoints: { ...localAws().endpoints, lambda: options.lambdaEndpoint },
      region: localAws().region,
      credentials: LOCAL_CREDENTIALS,
      middleware: options.middleware,
      env: {},
    });
  if (options.middleware !== undefined || options.lambdaEndpoint !== undefined) return build();
  shared ??= build();
  return shared;
};

/** A resource name unique to this run and call, under SQS's and DynamoDB's naming rules. */
export const uniqueName = (prefix: string): string =>
  `${prefix.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 60)}-${randomUUID().slice(0, 8)}`;

export interface TestQueues {
  readonly ingressQueueUrl: string;
  readonly ingressQueueArn: string;
  readonly internalQueueUrl: string;
  readonly internalQueueArn: string;
  readonly deadLetterQueueUrl: string;
  readonly deadLetterQueueArn: string;
}

const queueArn = async (clients: AwsClients, queueUrl: string): Promise<string> => {
  const { Attributes } = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["QueueArn"] }),
  );
  const arn = Attributes?.QueueArn;
  if (arn === undefined) throw new Error(`no QueueArn for ${queueUrl}`);
  return arn;
};

/**
 * Creates uniquely named queues like the stack's: an ingress queue (producers) and an internal
 * queue (Ricochet's own), each of whose native redrive moves a message to the dead-letter queue
 * after {@link TEST_MAX_RECEIVE_COUNT} receives.
 */
export const createTestQueues = async (prefix: string): Promise<TestQueues> => {
  const clients = testClients();
  const name = uniqueName(prefix);
  const dead = await clients.sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  if (dead.QueueUrl === undefined) throw new Error("CreateQueue returned no URL");
  const deadLetterQueueArn = await queueArn(clients, dead.QueueUrl);
  const inputQueue = async (suffix: string): Promise<{ url: string; arn: string }> => {
    const created = await clients.sqs.send(
      new CreateQueueCommand({
        QueueName: `${name}-${suffix}`,
        Attributes: {
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: deadLetterQueueArn,
            maxReceiveCount: TEST_MAX_RECEIVE_COUNT,
          }),
        },
      }),
    );
    if (created.QueueUrl === undefined) throw new Error("CreateQueue returned no URL");
    return { url: created.QueueUrl, arn: await queueArn(clients, created.QueueUrl) };
  };
  const ingress = await inputQueue("ingress");
  const internal = await inputQueue("internal");
  return {
    ingressQueueUrl: ingress.url,
    ingressQueueArn: ingress.arn,
    internalQueueUrl: internal.url,
    internalQueueArn: internal.arn,
    deadLetterQueueUrl: dead.QueueUrl,
    deadLetterQueueArn,
  };
};

/** The status index: records needing a decision, by status, oldest update first. */
export const STATUS_INDEX = STORE_STATUS_INDEX.name;

/**
 * Creates a uniquely named attempt table like the stack's, from the same definition
 * (lib/adapters/dynamo-record-item.ts: partition key `eventId`, sparse index `byStatus` on
 * `listedStatus` + `updatedAt`, on-demand), and returns its name once it is active.
 */
export const createTestTable = async (name: string): Promise<string> => {
  const clients = testClients();
  const tableName = uniqueName(name);
  await clients.dynamodb.send(new CreateTableCommand(recordTableDefinition(tableName)));
  await waitUntilTableExists(
    { client: clients.dynamodb, maxWaitTime: 30, minDelay: 1, maxDelay: 2 },
    { TableName: tableName },
  );
  return tableName;
};
