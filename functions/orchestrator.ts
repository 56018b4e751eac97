import { createAwsClients } from "../lib/adapters/aws-clients.js";
import { createPowertoolsLog, EmbeddedMetrics } from "../lib/adapters/powertools-observability.js";
import { loadConfig } from "../lib/config.js";
import { createOrchestratorRuntime, createPorts } from "../lib/runtime.js";
import { createSqsBatchHandler } from "../lib/sqs-batch-handler.js";

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
export const handler = createSqsBatchHandler(orchestrator, {
  internalQueue: config.internalQueueUrl,
  afterBatch: () => metrics.flush(),
});
