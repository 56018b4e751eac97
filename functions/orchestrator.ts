import { createAwsClients } from "../lib/adapters/aws-clients.js";
import { createPowertoolsLog, EmbeddedMetrics } from "../lib/adapters/powertools-observability.js";
import { loadConfig } from "../lib/runtime/config.js";
import { createOrchestratorRuntime, createPorts } from "../lib/runtime/create-ports.js";
import {
  createSqsBatchHandler,
  type OrchestratorSqsHandler,
} from "../lib/runtime/sqs-batch-handler.js";

// Read at init, so a deployment with a bad configuration fails before it takes any message.
const config = loadConfig();
const log = createPowertoolsLog();
const metrics = new EmbeddedMetrics();

/*
 * The SDK clients and the orchestrator are built by the first batch of the execution environment
 * and reused by every later one. Building them loads the AWS SDK, which was most of this module's
 * init (docs/benchmark-history.md, "Cold start"); the first batch pays it instead.
 */
let batchHandler: OrchestratorSqsHandler | undefined;
const orchestratorHandler = (): OrchestratorSqsHandler => {
  batchHandler ??= createSqsBatchHandler(
    createOrchestratorRuntime({
      config,
      ports: createPorts(config, createAwsClients()),
      log,
      metrics,
    }),
    { internalQueue: config.internalQueueUrl, afterBatch: () => metrics.flush() },
  );
  return batchHandler;
};

/** SQS event source handler: reports the messages to keep as a partial batch response. */
export const handler: OrchestratorSqsHandler = (event, context) =>
  orchestratorHandler()(event, context);
