import type { AwsClientMiddleware } from "../../lib/adapters/aws-clients.js";
import { queueRoleOf } from "./resources.js";

/** AWS requests seen by one set of clients, by `Service.Command` (every HTTP attempt counts). */
export interface RequestCounter {
  readonly middleware: AwsClientMiddleware;
  /** Counts since the last reset, e.g. `{ "SQS.ReceiveMessage": 12 }`. */
  snapshot(): Record<string, number>;
  /**
   * The SQS requests among them by queue role and command, e.g. `{ "internal.SendMessageBatch":
   * 3 }`: where a contender's queue bill goes, which the totals by command cannot tell apart
   * when it reads two queues.
   */
  sqsSnapshotByQueue(): Record<string, number>;
  /** Forgets what setup (CreateQueue, CreateTable…) sent, so only the measured run is counted. */
  reset(): void;
}

/** DynamoDB calls billed as writes (write request units). */
export const DYNAMO_WRITE_COMMANDS: ReadonlySet<string> = new Set([
  "PutItem",
  "UpdateItem",
  "DeleteItem",
  "BatchWriteItem",
  "TransactWriteItems",
]);

/** DynamoDB calls billed as reads (read request units). */
export const DYNAMO_READ_COMMANDS: ReadonlySet<string> = new Set([
  "GetItem",
  "Query",
  "Scan",
  "BatchGetItem",
  "TransactGetItems",
]);

const serviceOf = (clientName: string | undefined): string =>
  (clientName ?? "Unknown").replace(/Client$/, "").replace(/^DynamoDBDocument$/, "DynamoDB");

const sorted = (counts: ReadonlyMap<string, number>): Record<string, number> =>
  Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));

const increment = (counts: Map<string, number>, key: string): void => {
  counts.set(key, (counts.get(key) ?? 0) + 1);
};

/** A finalizeRequest middleware that counts every request its clients send. */
export const createRequestCounter = (name = "bench-request-counter"): RequestCounter => {
  let counts = new Map<string, number>();
  let sqsByQueue = new Map<string, number>();
  return {
    middleware: {
      name,
      middleware: (next, context) => async (args) => {
        const command = (context.commandName ?? "Unknown").replace(/Command$/, "");
        const service = serviceOf(context.clientName);
        increment(counts, `${service}.${command}`);
        const queueUrl = (args.input as { QueueUrl?: unknown } | undefined)?.QueueUrl;
        if (service === "SQS" && typeof queueUrl === "string") {
          increment(sqsByQueue, `${queueRoleOf(queueUrl)}.${command}`);
        }
        return next(args);
      },
    },
    snapshot: () => sorted(counts),
    sqsSnapshotByQueue: () => sorted(sqsByQueue),
    reset: () => {
      counts = new Map();
      sqsByQueue = new Map();
    },
  };
};
