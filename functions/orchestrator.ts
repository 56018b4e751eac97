import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { createAwsClients } from "../lib/adapters/aws-clients.js";
import { fromLambdaRecord } from "../lib/adapters/lambda-sqs-record.js";
import { createPowertoolsLog, EmbeddedMetrics } from "../lib/adapters/powertools-observability.js";
import { loadConfig } from "../lib/config.js";
import { createOrchestratorRuntime, createPorts } from "../lib/runtime.js";

// Built once per execution environment, outside the handler, so warm invocations reuse them.
const config = loadConfig();
const log = createPowertoolsLog();
const metrics = new EmbeddedMetrics();
const orchestrator = createOrchestratorRuntime({
  config,
  ports: createPorts(config, createAwsClients()),
  log,
  metrics,
});

/** SQS event source handler: reports the messages to keep as a partial batch response. */
export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  try {
    const failed = await orchestrator.processBatch(event.Records.map(fromLambdaRecord), () =>
      context.getRemainingTimeInMillis(),
    );
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  } finally {
    metrics.flush();
  }
};
