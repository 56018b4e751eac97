import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { fromLambdaRecord } from "./adapters/lambda-sqs-record.js";
import type { Orchestrator } from "./orchestrator.js";

/** Options of {@link createSqsBatchHandler}. */
export interface SqsBatchHandlerOptions {
  /**
   * Runs after every batch, whether it succeeded or threw (e.g. flushing metrics, which Lambda
   * would otherwise lose when the sandbox freezes).
   */
  readonly afterBatch?: () => void;
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
export const createSqsBatchHandler =
  (orchestrator: Orchestrator, options: SqsBatchHandlerOptions = {}): OrchestratorSqsHandler =>
  async (event, context) => {
    try {
      const failed = await orchestrator.processBatch(event.Records.map(fromLambdaRecord), () =>
        context.getRemainingTimeInMillis(),
      );
      return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
    } finally {
      options.afterBatch?.();
    }
  };
