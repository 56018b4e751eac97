import type { AwsClients } from "../../lib/adapters/aws-clients.js";
import type { FlushingTracer } from "../../lib/adapters/otel-tracer.js";
import type { Orchestrator } from "../../lib/app/orchestrator/orchestrator.js";
import { ENV } from "../../lib/contract/environment.js";
import { type CountingMetrics, silentLog } from "../../lib/core/observability.js";
import type { DeadLetterQueue, EventStore } from "../../lib/core/ports.js";
import type { DeliverySigner } from "../../lib/core/signing.js";
import { startEventSourcePoller } from "../../lib/local/event-source-poller.js";
import { localConfig } from "../../lib/local/local-config.js";
import type { RicochetConfig } from "../../lib/runtime/config.js";
import { createOrchestratorRuntime, createPorts } from "../../lib/runtime/create-ports.js";
import { createSqsBatchHandler } from "../../lib/runtime/sqs-batch-handler.js";
import type { TestQueues } from "./local-aws.js";

/*
 * The orchestrator harness's workers: orchestrators wired as the deployed function wires them
 * (runtime/create-ports.ts), each driven by the real event-source poller on both input queues.
 */

/** Lease margin in these tests: short, so takeovers after a "crash" happen within seconds. */
const TEST_LEASE_MARGIN_MS = 1_000;

export interface WorkerOptions {
  readonly count?: number;
  readonly store?: EventStore;
  readonly deadLetters?: DeadLetterQueue;
  readonly batchSize?: number;
  readonly visibilityTimeoutSeconds?: number;
  /** The poller's stand-in for the function timeout; default 30 s. */
  readonly functionTimeoutMs?: number;
  readonly hopSeconds?: number;
  /** More `RICOCHET_*` variables for the workers' configuration (limits, default policy). */
  readonly env?: NodeJS.ProcessEnv;
  /** Signs the workers' HTTP deliveries; default unsigned. */
  readonly signer?: DeliverySigner;
  /** Spans of the workers' messages and calls; flushed after every batch. */
  readonly tracer?: FlushingTracer;
}

export interface HarnessWorkers {
  /** The configuration every worker starts from. */
  readonly config: RicochetConfig;
  /** An orchestrator as a worker runs it, with the options' store, queue and settings. */
  orchestrator(options?: WorkerOptions): Orchestrator;
  /** Starts `count` workers, each polling both input queues like the deployed function. */
  start(options?: WorkerOptions): void;
  stop(): Promise<void>;
}

export const harnessWorkers = (deployment: {
  readonly clients: AwsClients;
  readonly queues: TestQueues;
  readonly tableName: string;
  readonly metrics: CountingMetrics;
}): HarnessWorkers => {
  const { clients, queues, tableName, metrics } = deployment;
  const pollers: { stop(): Promise<void> }[] = [];
  const configWith = (overrides: NodeJS.ProcessEnv = {}): RicochetConfig =>
    localConfig({ tableName, ...queues }, overrides);
  const config = configWith();

  const workerConfig = (options: WorkerOptions): RicochetConfig =>
    options.hopSeconds === undefined && options.env === undefined
      ? config
      : configWith({
          ...(options.hopSeconds === undefined
            ? {}
            : { [ENV.HOP_SECONDS]: String(options.hopSeconds) }),
          ...options.env,
        });

  const orchestrator = (options: WorkerOptions = {}): Orchestrator => {
    const settings = workerConfig(options);
    return createOrchestratorRuntime({
      config: settings,
      ports: {
        ...createPorts(settings, clients, { signer: options.signer }),
        ...(options.store === undefined ? {} : { store: options.store }),
        ...(options.deadLetters === undefined ? {} : { deadLetters: options.deadLetters }),
      },
      log: silentLog,
      metrics,
      leaseMarginMs: TEST_LEASE_MARGIN_MS,
      tracer: options.tracer,
    });
  };

  return {
    config,
    orchestrator,
    start: (options = {}) => {
      for (let i = 0; i < (options.count ?? 1); i += 1) {
        const handler = createSqsBatchHandler(orchestrator(options), {
          internalQueue: queues.internalQueueUrl,
          afterBatch: () => options.tracer?.flush(),
        });
        for (const queueUrl of [queues.ingressQueueUrl, queues.internalQueueUrl]) {
          pollers.push(
            startEventSourcePoller({
              sqs: clients.sqs,
              queueUrl,
              handler,
              batchSize: options.batchSize ?? 10,
              batchingWindowMs: 0,
              maxConcurrency: 1,
              functionTimeoutMs: options.functionTimeoutMs ?? 30_000,
              visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 30,
              waitTimeSeconds: 1,
            }),
          );
        }
      }
    },
    stop: async () => {
      await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
    },
  };
};
