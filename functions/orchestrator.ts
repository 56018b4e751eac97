import { createAwsClients } from "../lib/adapters/aws-clients.js";
import { createPowertoolsLog, EmbeddedMetrics } from "../lib/adapters/powertools-observability.js";
import { loadConfig } from "../lib/runtime/config.js";
import { createOrchestratorRuntime, createPorts } from "../lib/runtime/create-ports.js";
import {
  createSqsBatchHandler,
  type OrchestratorSqsHandler,
} from "../lib/runtime/sqs-batch-handler.js";
import { loadTracer } from "../lib/runtime/tracing.js";

// Read at init, so a deployment with a bad configuration fails before it takes any message.
const config = loadConfig();
const log = createPowertoolsLog();
const metrics = new EmbeddedMetrics();

/*
 * The SDK clients and the orchestrator are built by the first batch of the execution environment
 * and reused by every later one. Building them loads the AWS SDK, which was most of this module's
 * init (docs/benchmark-history.md, "Cold start"); the first batch pays it instead.
 */
let batchHandler: Promise<OrchestratorSqsHandler> | undefined;
const buildHandler = async (): Promise<OrchestratorSqsHandler> => {
  const tracer = await loadTracer(config.tracing);
  return createSqsBatchHandler(
    createOrchestratorRuntime({
      config,
      ports: createPorts(config, createAwsClients()),
      log,
      metrics,
      tracer,
    }),
    {
      internalQueue: config.internalQueueUrl,
      // Spans are flushed before the sandbox freezes, like metrics.
      afterBatch: async () => {
        metrics.flush();
        await tracer?.flush();
      },
    },
  );
};

/** SQS event source handler: reports the messages to keep as a partial batch response. */
export const handler: OrchestratorSqsHandler = async (event, context) => {
  // A build that failed is tried again by the next batch rather than failing every one after it.
  batchHandler ??= buildHandler().catch((error: unknown) => {
    batchHandler = undefined;
    throw error;
  });
  return (await batchHandler)(event, context);
};
