import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { fromLambdaRecord, queueNameOf } from "../adapters/lambda-sqs-record.js";
import type { Orchestrator } from "../app/orchestrator/orchestrator.js";

/** Options of {@link createSqsBatchHandler}. */
export interface SqsBatchHandlerOptions {
  /**
   * URL (or ARN) of Ricochet's internal queue: only its records are Ricochet's own messages,
   * whose scheduling attributes are believed. Every other source is a producer's.
   */
  readonly internalQueue: string;
  /**
   * Runs after every batch, whether it succeeded or threw (e.g. flushing metrics, which Lambda
   * would otherwise lose when the sandbox freezes).
   */
  readonly afterBatch?: () => void | Promise<void>;
}

/** A Lambda SQS handler with partial batch responses (`ReportBatchItemFailures`). */
export type OrchestratorSqsHandler = (
  event: SQSEvent,
  context: Context,
) => Promise<SQSBatchResponse>;

/**
 * The orchestrator as a Lambda SQS event handler: the one adapter between the event source
 * mapping's shape and {@link Orchestrator.processBatch}, shared by the deployed function, the
 * local `ricochet dev` poller and the integration tests, so all three run the same code path.
 * The function's remaining time bounds the batch; the messages to keep are reported as
 * `batchItemFailures`.
 */
export const createSqsBatchHandler = (
  orchestrator: Orchestrator,
  options: SqsBatchHandlerOptions,
): OrchestratorSqsHandler => {
  const internalQueueName = queueNameOf(options.internalQueue);
  return async (event, context) => {
    try {
      const failed = await orchestrator.processBatch(
        event.Records.map((record) => fromLambdaRecord(record, internalQueueName)),
        () => context.getRemainingTimeInMillis(),
      );
      return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
    } finally {
      await options.afterBatch?.();
    }
  };
};
