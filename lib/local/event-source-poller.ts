import { setTimeout as sleep } from "node:timers/promises";
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { ConfigurationError } from "../core/errors.js";
import { type BatchVerdict, readBatchResponse } from "./batch-response.js";
import type { FunctionConcurrency } from "./function-concurrency.js";
import { createLambdaContext } from "./lambda-context.js";
import { queueArnFromUrl, toSqsRecord } from "./sqs-record.js";

/** A Lambda handler for SQS events, with partial batch responses. */
export type SqsBatchHandler = (
  event: SQSEvent,
  context: Context,
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler declared `Promise<void>` must fit.
) => Promise<SQSBatchResponse | undefined | void>;

/** Where the poller reports failures it does not throw: handler errors, timeouts, SQS errors. */
export interface PollerLogger {
  error(message: string, details: Record<string, unknown>): void;
}

export interface EventSourcePollerOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly handler: SqsBatchHandler;
  /** Records per invocation, 1 to 10 000 (above 10 needs a batching window); default 10. */
  readonly batchSize?: number;
  /** How long to gather records before invoking with a partial batch; default 0. */
  readonly batchingWindowMs?: number;
  /** Pollers running at once, each invoking one batch at a time; default 2. */
  readonly maxConcurrency?: number;
  /**
   * The function's concurrency, shared with the other mappings that invoke the same function:
   * each invocation takes one of its slots, received batches wait for one. Absent, only
   * `maxConcurrency` bounds this mapping's invocations.
   */
  readonly functionConcurrency?: FunctionConcurrency;
  /** The function timeout: the context counts down from it, and a slower batch fails; default 30 s. */
  readonly functionTimeoutMs?: number;
  /** Visibility timeout for received messages; the queue's own when absent. */
  readonly visibilityTimeoutSeconds?: number;
  /** Long-poll wait, 0 to 20 s; default 1 so that `stop()` returns quickly. */
  readonly waitTimeSeconds?: number;
  /**
   * Whether `stop()` aborts a long poll in progress instead of waiting for it to end. SQS may
   * still hand the aborted receive messages that arrive later, which then stay hidden for their
   * visibility timeout: only for a caller that stops once its queue is empty and stays so (the
   * benchmark, whose rounds end when every queue has drained). Default false.
   */
  readonly abortWaitOnStop?: boolean;
  /** Named in the context; default "ricochet-local". */
  readonly functionName?: string;
  /** Region for the records and context; default the SQS client's. */
  readonly region?: string;
  readonly logger?: PollerLogger;
}

/** Counts since start; read them to wait for progress or assert on what happened. */
interface PollerStats {
  readonly receivedMessages: number;
  readonly invocations: number;
  readonly deletedMessages: number;
  /** Records listed in `batchItemFailures`, left on the queue. */
  readonly failedRecords: number;
  /** Invocations that threw, timed out or answered malformed: nothing deleted. */
  readonly failedBatches: number;
  readonly timedOutBatches: number;
  /**
   * Invocation time summed over invocations, each rounded up to a whole millisecond as Lambda
   * bills it: the duration half of a Lambda bill (GB-s = this × memory).
   */
  readonly billedDurationMs: number;
  readonly receiveErrors: number;
  readonly deleteErrors: number;
}

export interface EventSourcePoller {
  /** Stops polling, lets in-flight batches finish (timed-out handlers included), then resolves. */
  stop(): Promise<void>;
  readonly stats: PollerStats;
}

const consoleLogger: PollerLogger = {
  error: (message, details) => console.error(`[event-source-poller] ${message}`, details),
};

/** The pause after a failed receive, so an unreachable queue is not hammered. */
const RECEIVE_RETRY_MS = 1_000;
const MAX_RECEIVE = 10;

const validated = (options: EventSourcePollerOptions) => {
  const settings = {
    batchSize: options.batchSize ?? 10,
    batchingWindowMs: options.batchingWindowMs ?? 0,
    maxConcurrency: options.maxConcurrency ?? 2,
    functionTimeoutMs: options.functionTimeoutMs ?? 30_000,
    waitTimeSeconds: options.waitTimeSeconds ?? 1,
    functionName: options.functionName ?? "ricochet-local",
  };
  const problems: string[] = [];
  const wholeIn = (name: keyof typeof settings, min: number, max: number) => {
    const value = settings[name];
    if (!Number.isInteger(value) || Number(value) < min || Number(value) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}`);
    }
  };
  wholeIn("batchSize", 1, 10_000);
  wholeIn("batchingWindowMs", 0, 300_000);
  wholeIn("maxConcurrency", 1, 1_000);
  wholeIn("functionTimeoutMs", 1, 900_000);
  wholeIn("waitTimeSeconds", 0, 20);
  if (settings.batchSize > MAX_RECEIVE && settings.batchingWindowMs === 0) {
    problems.push("a batchSize above 10 needs a batchingWindowMs, as Lambda requires");
  }
  if (problems.length > 0) {
    throw new ConfigurationError(`invalid event source poller options: ${problems.join("; ")}`);
  }
  return settings;
};

const TIMED_OUT = Symbol("timed out");

/**
 * Drives a Lambda SQS handler from a real queue the way Lambda's SQS event source mapping does:
 * pollers receive batches (long polling, an optional batching window), invoke the handler with
 * real `SQSRecord`s and a context whose remaining time counts down from the function timeout,
 * then delete exactly the messages not listed in `batchItemFailures`. A thrown error, a timeout
 * or a malformed response fails the whole batch: nothing is deleted and every message comes back
 * after its visibility timeout. Failures are logged, never swallowed.
 */
export const startEventSourcePoller = (options: EventSourcePollerOptions): EventSourcePoller => {
  const settings = validated(options);
  const { sqs, queueUrl, handler } = options;
  const logger = options.logger ?? consoleLogger;
  const stats = {
    receivedMessages: 0,
    invocations: 0,
    deletedMessages: 0,
    failedRecords: 0,
    failedBatches: 0,
    timedOutBatches: 0,
    billedDurationMs: 0,
    receiveErrors: 0,
    deleteErrors: 0,
  };
  const stopping = new AbortController();
  /** Handlers that outlived their timeout: stop() still waits for them, like a frozen sandbox. */
  const overrunning = new Set<Promise<unknown>>();

  const pause = (ms: number) =>
    sleep(ms, undefined, { signal: stopping.signal }).catch(() => undefined);

  const source = (async () => {
    const region = options.region ?? (await sqs.config.region());
    return { region, queueArn: queueArnFromUrl(queueUrl, region) };
  })();
  source.catch(() => undefined);

  const receive = async (maxMessages: number, waitSeconds: number): Promise<Message[]> => {
    const { Messages } = await sqs
      .send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: maxMessages,
          WaitTimeSeconds: waitSeconds,
          MessageAttributeNames: ["All"],
          MessageSystemAttributeNames: ["All"],
          ...(options.visibilityTimeoutSeconds === undefined
            ? {}
            : { VisibilityTimeout: options.visibilityTimeoutSeconds }),
        }),
        options.abortWaitOnStop === true ? { abortSignal: stopping.signal } : {},
      )
      .catch((error: unknown) => {
        // Cut short by stop(): an idle poll, not a failure.
        if (options.abortWaitOnStop === true && stopping.signal.aborted) return { Messages: [] };
        throw error;
      });
    return Messages ?? [];
  };

  /** One batch: a long poll, then more receives until the batch is full or the window closes. */
  const collectBatch = async (): Promise<Message[]> => {
    const batch = await receive(
      Math.min(MAX_RECEIVE, settings.batchSize),
      settings.waitTimeSeconds,
    );
    const windowEnd = Date.now() + settings.batchingWindowMs;
    while (batch.length > 0 && batch.length < settings.batchSize && !stopping.signal.aborted) {
      const left = windowEnd - Date.now();
      if (left <= 0) break;
      const more = await receive(
        Math.min(MAX_RECEIVE, settings.batchSize - batch.length),
        Math.min(settings.waitTimeSeconds, Math.floor(left / 1000)),
      );
      batch.push(...more);
      if (more.length === 0) await pause(Math.min(100, left));
    }
    // A message whose visibility ran out inside the window comes twice; only the newer receipt
    // handle still deletes it.
    return [...new Map(batch.map((message) => [message.MessageId, message])).values()];
  };

  const invoke = async (event: SQSEvent, context: Context): Promise<unknown> => {
    const running = handler(event, context);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), settings.functionTimeoutMs);
    });
    try {
      const result = await Promise.race([running, timeout]);
      if (result === TIMED_OUT) {
        const late = running.then(
          () => undefined,
          (error: unknown) => logger.error("handler failed after its timeout", { queueUrl, error }),
        );
        overrunning.add(late);
        void late.finally(() => overrunning.delete(late));
      }
      return result;
    } finally {
      clearTimeout(timer);
    }
  };

  const deleteMessages = async (messages: readonly Message[]): Promise<void> => {
    for (let start = 0; start < messages.length; start += MAX_RECEIVE) {
      const chunk = messages.slice(start, start + MAX_RECEIVE);
      try {
        const { Failed } = await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: chunk.map((message, index) => ({
              Id: String(index),
              ReceiptHandle: message.ReceiptHandle,
            })),
          }),
        );
        const failed = Failed?.length ?? 0;
        stats.deletedMessages += chunk.length - failed;
        if (failed > 0) {
          stats.deleteErrors += failed;
          logger.error("some deletes failed", { queueUrl, failed: Failed });
        }
      } catch (error) {
        stats.deleteErrors += chunk.length;
        logger.error("delete failed", { queueUrl, error });
      }
    }
  };

  /** One invocation, timed from when it got a slot of the function's concurrency. */
  const invokeWithBatch = async (messages: readonly Message[], worker: number) => {
    const { region, queueArn } = await source;
    const startedAt = Date.now();
    const records = messages.map((message) =>
      toSqsRecord(message, { queueArn, region }, startedAt),
    );
    const context = createLambdaContext({
      functionName: settings.functionName,
      region,
      accountId: queueArn.split(":")[4] ?? "000000000000",
      deadlineMs: startedAt + settings.functionTimeoutMs,
      logStreamName: `local/poller-${worker}`,
      now: Date.now,
    });
    stats.invocations += 1;
    try {
      return await invoke({ Records: records }, context);
    } finally {
      stats.billedDurationMs += Math.max(1, Math.ceil(Date.now() - startedAt));
    }
  };

  const handleBatch = async (messages: Message[], worker: number): Promise<void> => {
    const messageIds = messages.map((message) => message.MessageId ?? "");
    let verdict: BatchVerdict;
    try {
      const invocation = () => invokeWithBatch(messages, worker);
      const response = await (options.functionConcurrency?.run(invocation) ?? invocation());
      if (response === TIMED_OUT) {
        stats.timedOutBatches += 1;
        verdict = {
          kind: "batch_failed",
          reason: `timed out after ${settings.functionTimeoutMs} ms`,
        };
      } else {
        verdict = readBatchResponse(messageIds, response);
      }
    } catch (error) {
      logger.error("handler threw: the whole batch fails", { queueUrl, messageIds, error });
      stats.failedBatches += 1;
      return;
    }
    if (verdict.kind === "batch_failed") {
      logger.error(`batch failed: ${verdict.reason}`, { queueUrl, messageIds });
      stats.failedBatches += 1;
      return;
    }
    stats.failedRecords += verdict.failed.length;
    const succeeded = new Set(verdict.succeeded);
    await deleteMessages(messages.filter((message) => succeeded.has(message.MessageId ?? "")));
  };

  const poll = async (worker: number): Promise<void> => {
    while (!stopping.signal.aborted) {
      let messages: Message[];
      try {
        messages = await collectBatch();
      } catch (error) {
        stats.receiveErrors += 1;
        logger.error("receive failed", { queueUrl, error });
        await pause(RECEIVE_RETRY_MS);
        continue;
      }
      stats.receivedMessages += messages.length;
      // Received even while stopping: these are in flight and are finished, not abandoned.
      if (messages.length > 0) await handleBatch(messages, worker);
    }
  };

  const workers = Array.from({ length: settings.maxConcurrency }, (_, worker) => poll(worker));
  let stopped: Promise<void> | undefined;
  return {
    stats,
    stop: () => {
      stopped ??= (async () => {
        stopping.abort();
        await Promise.all(workers);
        await Promise.all([...overrunning]);
      })();
      return stopped;
    },
  };
};
