import type { Message, SQSClient } from "@aws-sdk/client-sqs";
import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { collectBatch } from "./event-source-poller/collect-batch.js";
import { handleBatch } from "./event-source-poller/handle-batch.js";
import {
  createPollerContext,
  type PollerContext,
  pause,
} from "./event-source-poller/poller-context.js";
import { pollerSettings } from "./event-source-poller/poller-settings.js";
import type { FunctionConcurrency } from "./function-concurrency.js";

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
export interface PollerStats {
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

/** One poller: receives and handles a batch at a time until stop(). */
const poll = async (context: PollerContext, worker: number): Promise<void> => {
  const { stopping, stats, logger, queueUrl } = context;
  while (!stopping.signal.aborted) {
    let messages: Message[];
    try {
      messages = await collectBatch(context);
    } catch (error) {
      stats.receiveErrors += 1;
      logger.error("receive failed", { queueUrl, error });
      await pause(context, RECEIVE_RETRY_MS);
      continue;
    }
    stats.receivedMessages += messages.length;
    // Received even while stopping: these are in flight and are finished, not abandoned.
    if (messages.length > 0) await handleBatch(context, messages, worker);
  }
};

/**
 * Drives a Lambda SQS handler from a real queue the way Lambda's SQS event source mapping does:
 * pollers receive batches (long polling, an optional batching window), invoke the handler with
 * real `SQSRecord`s and a context whose remaining time counts down from the function timeout,
 * then delete exactly the messages not listed in `batchItemFailures`. A thrown error, a timeout
 * or a malformed response fails the whole batch: nothing is deleted and every message comes back
 * after its visibility timeout. Failures are logged, never swallowed.
 */
export const startEventSourcePoller = (options: EventSourcePollerOptions): EventSourcePoller => {
  const settings = pollerSettings(options);
  const context = createPollerContext(options, settings, options.logger ?? consoleLogger);
  const workers = Array.from({ length: settings.maxConcurrency }, (_, worker) =>
    poll(context, worker),
  );
  let stopped: Promise<void> | undefined;
  return {
    stats: context.stats,
    stop: () => {
      stopped ??= (async () => {
        context.stopping.abort();
        await Promise.all(workers);
        await Promise.all([...context.overrunning]);
      })();
      return stopped;
    },
  };
};
