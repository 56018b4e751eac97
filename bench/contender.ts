import type { AwsClients } from "../lib/adapters/aws-clients.js";
import type { PollerLogger } from "../lib/local/event-source-poller.js";
import {
  type EventSourcePoller,
  type SqsBatchHandler,
  startEventSourcePoller,
} from "../lib/local/event-source-poller.js";
import { createQueuePair } from "./support/resources.js";
import type { SeededReceiver } from "./support/seeded-receiver.js";

/** How every contender retries in one scenario: the same budget and spacing for all. */
export interface RetryShape {
  /** Attempts allowed per event (Ricochet's budget, the baselines' maxReceiveCount). */
  readonly maxAttempts: number;
  /** Seconds between a failed attempt and the next (the baselines' visibility timeout). */
  readonly delaySeconds: number;
  /** Per-call timeout; unset, Ricochet's default and the baselines' 10 s. */
  readonly timeoutMs?: number;
}

/** What the harness hands a contender for one round. */
export interface ContenderContext {
  /** Clients whose every request is counted for this contender and round only. */
  readonly clients: AwsClients;
  /** Uncounted clients, for the harness's own look-ups (reading records back after the run). */
  readonly plainClients: AwsClients;
  /** The calls the targets answered, per event id (Ricochet reads its retry timing from them). */
  readonly receiver: Pick<SeededReceiver, "calls">;
  /** How the events of this round retry; the baselines' queues are made to match it. */
  readonly retry: RetryShape;
  /** Pollers running at once, like Lambda's maximum concurrency; the same for every contender. */
  readonly pollers: number;
  /** Records per batch; the same for every contender. */
  readonly batchSize: number;
  /**
   * Where pollers report failed batches (a batch whose every record failed throws in Powertools);
   * counted rather than printed, since failures are the point of the benchmark.
   */
  readonly pollerLogger: PollerLogger;
}

/** A contender whose resources exist and whose consumer is not yet running. */
export interface PreparedContender {
  /** The queue the producer sends the events to. */
  readonly queueUrl: string;
  /** Every queue the consumer reads (the producer's first): the round ends when all are empty. */
  readonly consumedQueueUrls: readonly string[];
  /** Starts consuming (called just before the first event is sent, timer running). */
  start(): void;
  /** Records the handler was invoked with so far (redeliveries included). */
  recordsHandled(): number;
  /** Stops consuming and waits for in-flight batches. */
  stop(): Promise<void>;
  /** Figures only this contender can report, read after `stop()` with uncounted clients. */
  extraFigures?(eventIds: readonly string[]): Promise<Record<string, number | null>>;
}

/** One way of delivering events with retries, benchmarked side by side with the others. */
export interface Contender {
  readonly name: string;
  /** Creates the contender's queues and tables (their requests are not counted). */
  prepare(context: ContenderContext): Promise<PreparedContender>;
}

/** The message every contender receives: a Ricochet envelope, which the others read as JSON. */
export interface BenchEnvelope {
  readonly eventId: string;
  readonly target: { readonly type: "http"; readonly url: string; readonly timeoutMs?: number };
  readonly payload: { readonly eventId: string; readonly n: number };
  readonly policy: {
    readonly maxAttempts: number;
    readonly baseDelaySeconds: number;
    readonly maxDelaySeconds: number;
    readonly jitter: "none";
  };
}

/** Attempts allowed per event by every contender (Ricochet's budget, the others' maxReceiveCount). */
export const MAX_ATTEMPTS = 10;

/** Seconds between a failed attempt and the next, for every contender. */
export const RETRY_DELAY_SECONDS = 1;

/** The retries of the healthy and flaky scenarios. */
export const DEFAULT_RETRY: RetryShape = {
  maxAttempts: MAX_ATTEMPTS,
  delaySeconds: RETRY_DELAY_SECONDS,
};

export const benchEnvelope = (
  baseUrl: string,
  eventId: string,
  n: number,
  retry: RetryShape = DEFAULT_RETRY,
): BenchEnvelope => ({
  eventId,
  target: {
    type: "http",
    url: `${baseUrl}/${encodeURIComponent(eventId)}`,
    ...(retry.timeoutMs === undefined ? {} : { timeoutMs: retry.timeoutMs }),
  },
  payload: { eventId, n },
  // The baselines' schedule, so that a flaky run measures the engines and not their policies:
  // every retry a fixed delay after the failure, as a visibility timeout gives them. Jitter would
  // only move the tail (a 2 s cap with full jitter made Ricochet's last events wait longer).
  policy: {
    maxAttempts: retry.maxAttempts,
    baseDelaySeconds: retry.delaySeconds,
    maxDelaySeconds: retry.delaySeconds,
    jitter: "none",
  },
});

/** Calls the target like a hand-written consumer would; true when it answered 2xx. */
export const postEnvelope = async (envelope: BenchEnvelope): Promise<boolean> => {
  const response = await fetch(envelope.target.url, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": envelope.eventId },
    body: JSON.stringify(envelope.payload),
    signal: AbortSignal.timeout(envelope.target.timeoutMs ?? 10_000),
  });
  await response.arrayBuffer();
  return response.ok;
};

/**
 * The consuming half every contender shares: the local event-source poller, with the same batch
 * size, concurrency and long poll for all, driving the contender's own SQS handler. A contender
 * fed by several queues gets one poller per queue, as Lambda gives a function one event source
 * mapping per queue, each with its own maximum concurrency.
 */
export const consumeWith = (
  context: ContenderContext,
  options: {
    /** The producer's queue, then any other queue the same handler reads. */
    readonly queueUrls: readonly [string, ...string[]];
    readonly functionName: string;
    readonly handler: SqsBatchHandler;
    readonly functionTimeoutMs?: number;
  },
): Omit<PreparedContender, "extraFigures"> => {
  let pollers: EventSourcePoller[] = [];
  return {
    queueUrl: options.queueUrls[0],
    consumedQueueUrls: options.queueUrls,
    start: () => {
      pollers = options.queueUrls.map((queueUrl) =>
        startEventSourcePoller({
          sqs: context.clients.sqs,
          queueUrl,
          handler: options.handler,
          batchSize: context.batchSize,
          maxConcurrency: context.pollers,
          logger: context.pollerLogger,
          // SQS's longest wait, as SQS advises for long polling: an idle queue then costs a
          // receive per 20 s per poller, not one a second. A round stops once every queue is
          // empty, so cutting the last wait short loses no message.
          waitTimeSeconds: 20,
          abortWaitOnStop: true,
          functionName: options.functionName,
          ...(options.functionTimeoutMs === undefined
            ? {}
            : { functionTimeoutMs: options.functionTimeoutMs }),
        }),
      );
    },
    recordsHandled: () => pollers.reduce((sum, poller) => sum + poller.stats.receivedMessages, 0),
    stop: async () => {
      await Promise.all(pollers.map((poller) => poller.stop()));
    },
  };
};

/**
 * The queue pair of a contender that retries by redelivery (the baselines): a failed message
 * reappears after a visibility timeout of the round's retry delay and is dead-lettered natively
 * after its attempt budget in receives.
 */
export const createRedeliveryQueues = (context: ContenderContext, prefix: string) =>
  createQueuePair(context.clients.sqs, prefix, {
    maxReceiveCount: context.retry.maxAttempts,
    visibilityTimeoutSeconds: context.retry.delaySeconds,
  });
