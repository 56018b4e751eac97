import type { AwsClientMiddleware } from "../../lib/adapters/aws-clients.js";

/** AWS requests seen by one set of clients, by `Service.Command` (every HTTP attempt counts). */
export interface RequestCounter {
  readonly middleware: AwsClientMiddleware;
  /** Counts since the last reset, e.g. `{ "SQS.ReceiveMessage": 12 }`. */
  snapshot(): Record<string, number>;
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

/** A finalizeRequest middleware that counts every request its clients send. */
export const createRequestCounter = (name = "bench-request-counter"): RequestCounter => {
  let counts = new Map<string, number>();
  return {
    middleware: {
      name,
      middleware: (next, context) => async (args) => {
        const command = (context.commandName ?? "Unknown").replace(/Command$/, "");
        const key = `${serviceOf(context.clientName)}.${command}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        return next(args);
      },
    },
    snapshot: () => Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b))),
    reset: () => {
      counts = new Map();
    },
  };
};
