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
  /** SQS requests as SQS bills them: one per started 64 KiB of each request's payload. */
  sqsBilledRequests(): number;
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

/** SQS bills every 64 KiB chunk of a request's payload as one request. */
const SQS_BILLING_CHUNK_BYTES = 65_536;

interface SqsMessageLike {
  readonly MessageBody?: string;
  readonly Body?: string;
  readonly MessageAttributes?: Record<string, unknown>;
}

const messageBytes = (message: SqsMessageLike): number =>
  Buffer.byteLength(message.MessageBody ?? message.Body ?? "") +
  (message.MessageAttributes === undefined
    ? 0
    : Buffer.byteLength(JSON.stringify(message.MessageAttributes)));

/**
 * The payload SQS bills a call by: the messages it sends (`SendMessage`, `SendMessageBatch`) or
 * receives (`ReceiveMessage`), bodies and attributes; other calls carry no message payload.
 */
export const sqsPayloadBytes = (input: unknown, output: unknown): number => {
  const sent = input as { Entries?: readonly SqsMessageLike[] } & SqsMessageLike;
  const received = output as { Messages?: readonly SqsMessageLike[] } | undefined;
  const messages = [
    ...(sent.MessageBody === undefined ? [] : [sent]),
    ...(sent.Entries?.filter((entry) => entry.MessageBody !== undefined) ?? []),
    ...(received?.Messages ?? []),
  ];
  return messages.reduce((total, message) => total + messageBytes(message), 0);
};

/** Requests SQS bills for one call with this payload: at least one. */
export const sqsBilledChunks = (payloadBytes: number): number =>
  Math.max(1, Math.ceil(payloadBytes / SQS_BILLING_CHUNK_BYTES));

/** A finalizeRequest middleware that counts every request its clients send. */
export const createRequestCounter = (name = "bench-request-counter"): RequestCounter => {
  let counts = new Map<string, number>();
  let sqsByQueue = new Map<string, number>();
  let sqsBilled = 0;
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
        if (service !== "SQS") return next(args);
        // Counted once answered, since a receive is billed by what it brought back; a failed
        // attempt is still one request.
        try {
          const result = await next(args);
          sqsBilled += sqsBilledChunks(sqsPayloadBytes(args.input, result.output));
          return result;
        } catch (error) {
          sqsBilled += 1;
          throw error;
        }
      },
    },
    snapshot: () => sorted(counts),
    sqsSnapshotByQueue: () => sorted(sqsByQueue),
    sqsBilledRequests: () => sqsBilled,
    reset: () => {
      counts = new Map();
      sqsByQueue = new Map();
      sqsBilled = 0;
    },
  };
};
