import { createAwsClients } from "../../lib/adapters/aws-clients.js";
import { createDynamoEventStore } from "../../lib/adapters/dynamo-event-store.js";
import { LOCAL_CREDENTIALS } from "../../lib/contract/local-identity.js";
import { parseEnvelope } from "../../lib/core/envelope.js";
import { CountingMetrics, silentLog } from "../../lib/core/observability.js";
import type { EventStore } from "../../lib/core/ports.js";
import { startEventSourcePoller } from "../../lib/local/event-source-poller.js";
import { localConfig } from "../../lib/local/local-config.js";
import {
  createOrchestratorRuntime,
  createPorts,
  sendGatherMaxMsFor,
} from "../../lib/runtime/create-ports.js";
import {
  createSqsBatchHandler,
  type OrchestratorSqsHandler,
} from "../../lib/runtime/sqs-batch-handler.js";
import { observeStore } from "../support/observed-store.js";
import { streamFor } from "../support/random-streams.js";
import { createAwsFaultInjector } from "./aws-fault-injector.js";
import { traceAsk, traceClaim, traceResult, traceUnrecorded } from "./claim-trace.js";
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
const observed = observeStore(ports.store, {
  onClaimed: ({ eventId, generation }, { record, takeover }) =>
    traceClaim(settings.claimTraceFile, {
      eventId,
      generation,
      attempt: record.attempts,
      takeover,
    }),
  onRecorded: ({ eventId, status }) => {
    traceResult(settings.claimTraceFile, eventId);
    report({ type: "result", eventId, status });
  },
});
/**
 * A claim whose answer never came back may have landed all the same: a fault dropped the
 * response (the SDK's retry then finds the event leased until exactly this claim's lease end),
 * or, on a loaded machine, the request timed out after DynamoDB had applied it. Either is traced
 * as a claim whose run never records an end, so that the attempt it may have counted is not
 * taken for one counted without a call.
 */
const claimTraced: EventStore["claim"] = async (request) => {
  const mayHaveLanded = () =>
    traceClaim(settings.claimTraceFile, {
      eventId: request.eventId,
      generation: request.generation,
      attempt: 0,
      takeover: false,
    });
  try {
    const result = await observed.claim(request);
    if (result.kind === "lease_held" && result.leaseExpiresAt === request.nowMs + request.leaseMs)
      mayHaveLanded();
    return result;
  } catch (error) {
    mayHaveLanded();
    throw error;
  }
};
/** Each claim's asking and answer traced around it: a SIGKILL between them leaves it unanswered. */
let asks = 0;
const store: EventStore = {
  ...observed,
  claim: async (request) => {
    asks += 1;
    const ask = asks;
    traceAsk(settings.claimTraceFile, "asking", request.eventId, ask);
    try {
      return await claimTraced(request);
    } finally {
      traceAsk(settings.claimTraceFile, "answered", request.eventId, ask);
    }
  },
};
const orchestrator = createOrchestratorRuntime({
  config,
  ports: { ...ports, store },
  log: silentLog,
  metrics: new CountingMetrics(),
  workerId: settings.workerId,
  leaseMarginMs: settings.leaseMarginMs,
  random: streamFor(settings.seed, "backoff", settings.workerId),
});
// Like the deployed function: one event source mapping per input queue, both into one handler,
// which tells Ricochet's own messages from producers' by the queue they came from.
const orchestratorHandler = createSqsBatchHandler(orchestrator, {
  internalQueue: settings.internalQueueUrl,
});
// The first-sight check reads the table without injected faults: a fault here would say nothing.
const checkClients = createAwsClients({
  endpoints: settings.endpoints,
  region: settings.region,
  credentials: LOCAL_CREDENTIALS,
  env: {},
});
const checkStore = createDynamoEventStore({
  doc: checkClients.documents,
  tableName: settings.tableName,
});
/**
 * The handler, then, before the poller deletes what it acknowledged, a look at each valid
 * event's record: one missing is traced, for the check that every acknowledged event has a
 * record from its first sight (issue #36). A read that fails proves nothing and is skipped.
 */
const handler: OrchestratorSqsHandler = async (event, context) => {
  const response = await orchestratorHandler(event, context);
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  for (const message of event.Records) {
    const parsed = failed.has(message.messageId) ? undefined : parseEnvelope(message.body);
    if (parsed?.ok !== true) continue;
    const { eventId } = parsed.envelope;
    const record = await checkStore.get(eventId).catch(() => null);
    if (record === undefined) traceUnrecorded(settings.claimTraceFile, eventId);
  }
  return response;
};
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
    checkClients.destroy();
    process.exit(0);
  });
});
report({ type: "ready" });
