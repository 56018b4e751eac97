import { createDynamoEventStore } from "../../lib/adapters/dynamo-event-store.js";
import { createOtelTracer } from "../../lib/adapters/otel-tracer.js";
import { SETTINGS } from "../../lib/contract/settings.js";
import { CountingMetrics, silentLog } from "../../lib/core/observability.js";
import {
  internalBatchingWindow,
  RETRY_ORCHESTRATOR_DEFAULTS,
  VISIBILITY_TIMEOUT_FACTOR,
} from "../../lib/infra/retry-orchestrator-props.js";
import { localConfig } from "../../lib/local/local-config.js";
import { createOrchestratorRuntime, createPorts } from "../../lib/runtime/create-ports.js";
import { createSqsBatchHandler } from "../../lib/runtime/sqs-batch-handler.js";
import { type Contender, consumeWith } from "../contender.js";
import type { FunctionDeployment, MappingDeployment } from "../support/deployment.js";
import { startOtlpSink } from "../support/otlp-sink.js";
import { createRicochetQueues, createTable } from "../support/resources.js";
import { percentile, scheduleErrors } from "../support/schedule-error.js";
import { storedItemSizes } from "../support/stored-items.js";

const DAY_SECONDS = 86_400;

/**
 * Ricochet as `RetryOrchestrator` deploys it with its defaults: both queues mapped to the one
 * orchestrator function with the same batch size and maximum concurrency (the internal queue
 * without the ingress queue's batching window), visibility
 * timeouts six times the function timeout, records kept 30 days with point-in-time recovery.
 */
const ricochetDeployment = (): FunctionDeployment => {
  const d = RETRY_ORCHESTRATOR_DEFAULTS;
  const timeoutSeconds = d.functionTimeout.toSeconds();
  const mapping = (queueRole: MappingDeployment["queueRole"]): MappingDeployment => ({
    queueRole,
    queue: {
      visibilityTimeoutSeconds: timeoutSeconds * VISIBILITY_TIMEOUT_FACTOR,
      maxReceiveCount: d.maxReceiveCount,
    },
    batchSize: d.batchSize,
    maxBatchingWindowSeconds: (queueRole === "internal"
      ? internalBatchingWindow(d)
      : d.maxBatchingWindow
    ).toSeconds(),
    maximumConcurrency: d.maxConcurrency,
  });
  return {
    timeoutSeconds,
    memoryMb: d.memorySize,
    architecture: "arm64",
    mappings: [mapping("in"), mapping("internal")],
    table: {
      retentionSeconds: SETTINGS.recordRetentionDays.default * DAY_SECONDS,
      pointInTimeRecovery: true,
    },
  };
};

/**
 * This project's orchestrator, wired as functions/orchestrator.ts wires it, driven by the local
 * event-source poller: one per mapping of {@link ricochetDeployment}, sharing one concurrency.
 * Retries are new messages with DelaySeconds on the internal queue, so the queues' visibility
 * timeout is long: it only matters when a worker crashes. `env` is the function's environment
 * beyond its resources (e.g. `RICOCHET_CIRCUIT_BREAKER`); `deployment` a variant of the default
 * one, to measure a change of setting side by side.
 */
export const createRicochetContender = (
  name: string,
  env: NodeJS.ProcessEnv = {},
  deployment: () => FunctionDeployment = ricochetDeployment,
  traced = false,
): Contender => ({
  name,
  deployment,
  prepare: async (context) => {
    const { clients, plainClients, receiver } = context;
    const queues = await createRicochetQueues(
      clients.sqs,
      "bench-ricochet",
      context.deployment.mappings[0].queue,
    );
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
    // Spans exported to a local sink, flushed after every batch as the deployed function does.
    const tracer = traced
      ? createOtelTracer({ kind: "otlp", url: (await startOtlpSink()).url })
      : undefined;
    const orchestrator = createOrchestratorRuntime({
      config,
      ports: createPorts(config, clients),
      log: silentLog,
      metrics: new CountingMetrics(),
      tracer,
    });
    return {
      ...consumeWith(context, {
        queueUrls: { in: queues.queueUrl, internal: queues.internalQueueUrl },
        functionName: name,
        handler: createSqsBatchHandler(orchestrator, {
          internalQueue: queues.internalQueueUrl,
          afterBatch: () => tracer?.flush(),
        }),
      }),
      tableName,
      extraFigures: async (eventIds) => {
        const store = createDynamoEventStore({ doc: plainClients.documents, tableName });
        const records = await Promise.all(eventIds.map((eventId) => store.get(eventId)));
        const found = records.flatMap((record) => (record === undefined ? [] : [record]));
        // DynamoDB bills a write by the item's size in 1 KB units (the larger of before and after):
        // the stored items are weighed as DynamoDB weighs them, not the records read from them.
        const sizes = await storedItemSizes(plainClients, tableName, eventIds);
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

/** Ricochet again under another name: the A/A twin of a run that compares Ricochet with itself. */
export const ricochetAA: Contender = createRicochetContender("ricochetAA");

/** Ricochet with `tracing: true`, for `npm run bench -- --tracing` (on and off, same run). */
export const ricochetTraced: Contender = createRicochetContender(
  "ricochet-tracing",
  {},
  ricochetDeployment,
  true,
);
