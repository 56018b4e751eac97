import { ChangeMessageVisibilityBatchCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { SQSBatchResponse, SQSRecord } from "aws-lambda";
import type { AwsClients } from "../lib/adapters/aws-clients.js";
import { MAX_SQS_VISIBILITY_TIMEOUT_SECONDS } from "../lib/contract/aws-limits.js";
import { drawDelaySeconds } from "../lib/core/backoff.js";
import { DEFAULT_POLICY, type Jitter, type RetryPolicy } from "../lib/core/policy.js";
import { systemRandom } from "../lib/core/random.js";
import type { PollerLogger } from "../lib/local/event-source-poller.js";
import {
  type EventSourcePoller,
  type SqsBatchHandler,
  startEventSourcePoller,
} from "../lib/local/event-source-poller.js";
import type { FunctionConcurrency } from "../lib/local/function-concurrency.js";
import type { FunctionDeployment, MappingDeployment } from "./support/deployment.js";
import { createQueuePair } from "./support/resources.js";
import type { SeededReceiver } from "./support/seeded-receiver.js";

/**
 * How every contender retries in one scenario: the same budget and the same schedule for all,
 * Ricochet through its policy, the others through `ChangeMessageVisibility` on a failed record.
 */
export interface RetryShape {
  /** Attempts allowed per event (Ricochet's budget, the baselines' maxReceiveCount). */
  readonly maxAttempts: number;
  /** The first retry's delay ceiling, in seconds. */
  readonly baseDelaySeconds: number;
  /** Growth of the ceiling per retry. */
  readonly multiplier: number;
  /** The largest ceiling, in seconds. */
  readonly maxDelaySeconds: number;
  readonly jitter: Jitter;
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
  /** The contender's own deployment for this round, already checked to be deployable. */
  readonly deployment: FunctionDeployment;
  /**
   * The function's concurrency, the same budget for every contender, shared by all of this
   * contender's mappings as reserved concurrency bounds a function that several mappings invoke.
   */
  readonly concurrency: FunctionConcurrency;
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
  /** The contender's records table, whose items are weighed for the storage bill. */
  readonly tableName?: string;
  /** Starts consuming (called just before the first event is sent, timer running). */
  start(): void;
  /** Records the handler was invoked with so far (redeliveries included). */
  recordsHandled(): number;
  /** Invocations and their billed milliseconds so far: the Lambda half of the bill. */
  invocations(): { readonly count: number; readonly billedMs: number };
  /** Stops consuming and waits for in-flight batches. */
  stop(): Promise<void>;
  /** Figures only this contender can report, read after `stop()` with uncounted clients. */
  extraFigures?(eventIds: readonly string[]): Promise<Record<string, number | null>>;
}

/** One way of delivering events with retries, benchmarked side by side with the others. */
export interface Contender {
  readonly name: string;
  /** What it deploys for rounds retried as `retry`: queues, mappings, function, table. */
  deployment(retry: RetryShape): FunctionDeployment;
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
    readonly multiplier: number;
    readonly maxDelaySeconds: number;
    readonly jitter: Jitter;
  };
}

/** Attempts allowed per event by every contender (Ricochet's budget, the others' maxReceiveCount). */
const MAX_ATTEMPTS = 10;

/**
 * The retries of the healthy and flaky scenarios: every retry 1 s after the failure. Jitter is
 * for spreading a herd of retries; here it would only lengthen every contender's tail alike.
 */
export const DEFAULT_RETRY: RetryShape = {
  maxAttempts: MAX_ATTEMPTS,
  baseDelaySeconds: 1,
  multiplier: 2,
  maxDelaySeconds: 1,
  jitter: "none",
};

/** The shape as a Ricochet policy: what the envelope asks for and what the baselines follow. */
const retryPolicyOf = (retry: RetryShape): RetryPolicy => ({
  ...DEFAULT_POLICY,
  maxAttempts: retry.maxAttempts,
  baseDelaySeconds: retry.baseDelaySeconds,
  multiplier: retry.multiplier,
  maxDelaySeconds: retry.maxDelaySeconds,
  jitter: retry.jitter,
});

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
  policy: {
    maxAttempts: retry.maxAttempts,
    baseDelaySeconds: retry.baseDelaySeconds,
    multiplier: retry.multiplier,
    maxDelaySeconds: retry.maxDelaySeconds,
    jitter: retry.jitter,
  },
});

/** The baselines' call timeout when the retry shape sets none. */
export const BASELINE_CALL_TIMEOUT_MS = 10_000;

/** Calls the target like a hand-written consumer would; true when it answered 2xx. */
export const postEnvelope = async (envelope: BenchEnvelope): Promise<boolean> => {
  const response = await fetch(envelope.target.url, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": envelope.eventId },
    body: JSON.stringify(envelope.payload),
    signal: AbortSignal.timeout(envelope.target.timeoutMs ?? BASELINE_CALL_TIMEOUT_MS),
  });
  await response.arrayBuffer();
  return response.ok;
};

/**
 * The consuming half every contender shares: one local event-source poller per mapping of its
 * deployment (batch size, batching window, function timeout as deployed), every invocation
 * taking a slot of the function's one concurrency budget, driving the contender's SQS handler.
 * A mapping runs as many receive loops as the budget (or its own maximum concurrency) allows;
 * Lambda likewise polls a queue with more pollers than it has invocations to give them.
 */
export const consumeWith = (
  context: ContenderContext,
  options: {
    /** Each mapping's queue, by the role its deployment names. */
    readonly queueUrls: { readonly in: string; readonly internal?: string };
    readonly functionName: string;
    readonly handler: SqsBatchHandler;
  },
): Omit<PreparedContender, "extraFigures" | "tableName"> => {
  const { deployment } = context;
  const queueUrlOf = (mapping: MappingDeployment): string => {
    const url = options.queueUrls[mapping.queueRole];
    if (url === undefined)
      throw new Error(`no ${mapping.queueRole} queue for ${options.functionName}`);
    return url;
  };
  let pollers: EventSourcePoller[] = [];
  return {
    queueUrl: options.queueUrls.in,
    consumedQueueUrls: deployment.mappings.map(queueUrlOf),
    start: () => {
      pollers = deployment.mappings.map((mapping) =>
        startEventSourcePoller({
          sqs: context.clients.sqs,
          queueUrl: queueUrlOf(mapping),
          handler: options.handler,
          batchSize: mapping.batchSize,
          batchingWindowMs: mapping.maxBatchingWindowSeconds * 1000,
          maxConcurrency: Math.min(
            context.concurrency.limit,
            mapping.maximumConcurrency ?? context.concurrency.limit,
          ),
          functionConcurrency: context.concurrency,
          logger: context.pollerLogger,
          // SQS's longest wait, as SQS advises for long polling: an idle queue then costs a
          // receive per 20 s per poller, not one a second. A round stops once every queue is
          // empty, so cutting the last wait short loses no message.
          waitTimeSeconds: 20,
          abortWaitOnStop: true,
          functionName: options.functionName,
          functionTimeoutMs: deployment.timeoutSeconds * 1000,
        }),
      );
    },
    recordsHandled: () => pollers.reduce((sum, poller) => sum + poller.stats.receivedMessages, 0),
    invocations: () => ({
      count: pollers.reduce((sum, poller) => sum + poller.stats.invocations, 0),
      billedMs: pollers.reduce((sum, poller) => sum + poller.stats.billedDurationMs, 0),
    }),
    stop: async () => {
      await Promise.all(pollers.map((poller) => poller.stop()));
    },
  };
};

/**
 * The function a redelivery-based consumer deploys (the baselines): one mapping of the queue
 * with SQS's defaults, a visibility timeout six times the function timeout (AWS's advice for
 * Lambda), native redrive after the attempt budget in receives.
 */
export const redeliveryDeployment = (
  retry: RetryShape,
  options: {
    readonly timeoutSeconds: number;
    readonly memoryMb: number;
    readonly table?: FunctionDeployment["table"];
  },
): FunctionDeployment => ({
  timeoutSeconds: options.timeoutSeconds,
  memoryMb: options.memoryMb,
  architecture: "arm64",
  mappings: [
    {
      queueRole: "in",
      queue: {
        visibilityTimeoutSeconds: options.timeoutSeconds * 6,
        maxReceiveCount: retry.maxAttempts,
      },
      batchSize: 10,
      maxBatchingWindowSeconds: 0,
    },
  ],
  ...(options.table === undefined ? {} : { table: options.table }),
});

/** The queue pair of a redelivery-based contender, made as its deployment says. */
export const createRedeliveryQueues = (context: ContenderContext, prefix: string) =>
  createQueuePair(context.clients.sqs, prefix, context.deployment.mappings[0].queue);

/** The most entries one SQS batch call takes. */
export const SQS_MAX_BATCH_ENTRIES = 10;

/**
 * What a redelivery-based consumer does for a short retry with a long visibility timeout: each
 * failed record's visibility is set to its retry's delay (`ApproximateReceiveCount` is the
 * attempt that failed), one `ChangeMessageVisibilityBatch` per ten failures. Without it a failed
 * record would wait out the whole visibility timeout. `holdSeconds`, when given, is the least a
 * record must stay hidden for its own reason (a circuit breaker still open for its target): it
 * is then hidden for the longer of the two, never sooner than the schedule says.
 */
export const scheduleRedeliveries = async (
  sqs: SQSClient,
  queueUrl: string,
  records: readonly SQSRecord[],
  response: SQSBatchResponse,
  retry: RetryShape,
  holdSeconds: (record: SQSRecord) => number = () => 0,
): Promise<void> => {
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  const policy = retryPolicyOf(retry);
  const entries = records
    .filter((record) => failed.has(record.messageId))
    .map((record, index) => ({
      Id: String(index),
      ReceiptHandle: record.receiptHandle,
      VisibilityTimeout: Math.max(
        drawDelaySeconds(policy, Number(record.attributes.ApproximateReceiveCount), systemRandom),
        Math.min(MAX_SQS_VISIBILITY_TIMEOUT_SECONDS, Math.ceil(holdSeconds(record))),
      ),
    }));
  for (let start = 0; start < entries.length; start += SQS_MAX_BATCH_ENTRIES) {
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: queueUrl,
        Entries: entries.slice(start, start + SQS_MAX_BATCH_ENTRIES),
      }),
    );
  }
};
