import { createAwsClients } from "../../lib/adapters/aws-clients.js";
import { LOCAL_CREDENTIALS } from "../../lib/contract/local-identity.js";
import { CountingMetrics, silentLog } from "../../lib/core/observability.js";
import { startEventSourcePoller } from "../../lib/local/event-source-poller.js";
import { localConfig } from "../../lib/local/local-config.js";
import {
  createOrchestratorRuntime,
  createPorts,
  sendGatherMaxMsFor,
} from "../../lib/runtime/create-ports.js";
import { createSqsBatchHandler } from "../../lib/runtime/sqs-batch-handler.js";
import { observeStore } from "../support/observed-store.js";
import { streamFor } from "../support/random-streams.js";
import { createAwsFaultInjector } from "./aws-fault-injector.js";
import { traceClaim } from "./claim-trace.js";
import { readWorkerSettings, type WorkerReport } from "./worker-settings.js";

/*
 * One chaos worker process: the real orchestrator, the real adapters and the event-source poller
 * against local AWS, with seeded faults injected under every SDK call. The supervisor kills it
 * with SIGKILL at random; SIGTERM stops it cleanly. It exits on its own when its supervisor dies
 * (the IPC channel closes), so a killed chaos run leaves no worker behind.
 */

const settings = readWorkerSettings(process.env);
const report = (message: WorkerReport): void => {
  if (process.connected) process.send?.(message);
};
process.on("disconnect", () => process.exit(1));

const struck = new Set<string>();
const clients = createAwsClients({
  endpoints: settings.endpoints,
  region: settings.region,
  credentials: LOCAL_CREDENTIALS,
  env: {},
  middleware: [
    createAwsFaultInjector({
      rate: settings.faultRate,
      random: streamFor(settings.seed, "aws-faults", settings.workerId),
      onFault: (fault, call) => report({ type: "fault", fault, call }),
      failsResultWrite: (eventId) => {
        // Once per event in this process; another worker may strike it once more, which only
        // repeats the path under test.
        if (struck.has(eventId)) return false;
        struck.add(eventId);
        return (
          streamFor(settings.seed, "result-write-fault", eventId)() < settings.resultWriteFaultShare
        );
      },
    }),
  ],
});
const config = localConfig(settings);
// The re-sends' wait for their batch scales with the lease margin, as every other timing here.
const ports = createPorts(config, clients, {
  sendGatherMaxMs: sendGatherMaxMsFor(settings.leaseMarginMs),
});
const orchestrator = createOrchestratorRuntime({
  config,
  ports: {
    ...ports,
    store: observeStore(ports.store, {
      onClaimed: ({ eventId, generation }, { record, takeover }) =>
        traceClaim(settings.claimTraceFile, {
          eventId,
          generation,
          attempt: record.attempts,
          takeover,
        }),
      onRecorded: ({ eventId, status }) => report({ type: "result", eventId, status }),
    }),
  },
  log: silentLog,
  metrics: new CountingMetrics(),
  workerId: settings.workerId,
  leaseMarginMs: settings.leaseMarginMs,
  random: streamFor(settings.seed, "backoff", settings.workerId),
});
// Like the deployed function: one event source mapping per input queue, both into one handler,
// which tells Ricochet's own messages from producers' by the queue they came from.
const handler = createSqsBatchHandler(orchestrator, { internalQueue: settings.internalQueueUrl });
const pollers = [settings.ingressQueueUrl, settings.internalQueueUrl].map((queueUrl) =>
  startEventSourcePoller({
    sqs: clients.sqs,
    queueUrl,
    region: settings.region,
    batchSize: settings.batchSize,
    maxConcurrency: settings.pollers,
    functionTimeoutMs: settings.functionTimeoutMs,
    visibilityTimeoutSeconds: settings.visibilityTimeoutSeconds,
    // Injected faults make receive and delete errors routine; the report counts what matters.
    logger: { error: () => undefined },
    handler,
  }),
);

process.once("SIGTERM", () => {
  void Promise.all(pollers.map((poller) => poller.stop())).finally(() => {
    clients.destroy();
    process.exit(0);
  });
});
report({ type: "ready" });
