import { createDynamoEventStore } from "../../lib/adapters/dynamo-event-store.js";
import { CountingMetrics, silentLog } from "../../lib/core/observability.js";
import { localConfig } from "../../lib/local/local-config.js";
import { createOrchestratorRuntime, createPorts } from "../../lib/runtime/create-ports.js";
import { createSqsBatchHandler } from "../../lib/runtime/sqs-batch-handler.js";
import { type Contender, consumeWith, MAX_ATTEMPTS } from "../contender.js";
import { createRicochetQueues, createTable } from "../support/resources.js";
import { percentile, scheduleErrors } from "../support/schedule-error.js";

/**
 * This project's orchestrator, wired as functions/orchestrator.ts wires it, driven by the local
 * event-source poller: one per input queue, as the stack maps both queues to the function.
 * Retries are new messages with DelaySeconds on the internal queue, so the queues' visibility
 * timeout is long: it only matters when a worker crashes. `env` is the function's environment
 * beyond its resources (e.g. `RICOCHET_CIRCUIT_BREAKER`).
 */
export const createRicochetContender = (name: string, env: NodeJS.ProcessEnv = {}): Contender => ({
  name,
  prepare: async (context) => {
    const { clients, plainClients, receiver } = context;
    const queues = await createRicochetQueues(clients.sqs, "bench-ricochet", {
      maxReceiveCount: MAX_ATTEMPTS,
      visibilityTimeoutSeconds: 30,
    });
    const tableName = await createTable(clients.dynamodb, "bench-ricochet", {
      key: "eventId",
      statusIndex: true,
    });
    const config = localConfig(
      {
        tableName,
        ingressQueueUrl: queues.queueUrl,
        internalQueueUrl: queues.internalQueueUrl,
        deadLetterQueueUrl: queues.deadLetterQueueUrl,
      },
      env,
    );
    const orchestrator = createOrchestratorRuntime({
      config,
      ports: createPorts(config, clients),
      log: silentLog,
      metrics: new CountingMetrics(),
    });
    return {
      ...consumeWith(context, {
        queueUrls: [queues.queueUrl, queues.internalQueueUrl],
        functionName: "bench-ricochet",
        handler: createSqsBatchHandler(orchestrator, { internalQueue: queues.internalQueueUrl }),
        functionTimeoutMs: 30_000,
      }),
      extraFigures: async (eventIds) => {
        const store = createDynamoEventStore({ doc: plainClients.documents, tableName });
        const records = await Promise.all(eventIds.map((eventId) => store.get(eventId)));
        const found = records.flatMap((record) => (record === undefined ? [] : [record]));
        // DynamoDB bills a write by the item's size in 1 KB units (the larger of before and after).
        const sizes = found.map((record) => Buffer.byteLength(JSON.stringify(record)));
        return {
          ...scheduleErrors(found, receiver.calls),
          // Runs started against the events' budgets; deferrals by a breaker are not among them.
          attemptsCharged: found.reduce((sum, record) => sum + record.attempts, 0),
          recordBytesP50: percentile(sizes, 50),
          recordBytesMax: sizes.length === 0 ? null : Math.max(...sizes),
        };
      },
    };
  },
});

/** Ricochet as deployed by default: no circuit breakers. */
export const ricochet: Contender = createRicochetContender("ricochet");
