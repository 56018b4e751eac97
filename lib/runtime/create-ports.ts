import { randomBytes } from "node:crypto";
import type { AwsClients } from "../adapters/aws-clients.js";
import { createDynamoEventStore } from "../adapters/dynamo-event-store.js";
import { createDynamoTargetLimitsStore } from "../adapters/dynamo-target-limits-store.js";
import { createDynamoTargetStateStore } from "../adapters/dynamo-target-state-store.js";
import { createSecretSigner } from "../adapters/signing-secret.js";
import { createSqsDeadLetterQueue } from "../adapters/sqs-dead-letter-queue.js";
import { createSqsIngressQueue } from "../adapters/sqs-ingress-queue.js";
import { createHttpTarget } from "../adapters/targets/http-target.js";
import { createLambdaTarget } from "../adapters/targets/lambda-target.js";
import { createTargetRouter } from "../adapters/targets/target-router.js";
import { createAdaptiveLimiter } from "../app/orchestrator/adaptive-limits.js";
import {
  createOrchestrator,
  type Orchestrator,
  type OrchestratorDeps,
} from "../app/orchestrator/orchestrator.js";
import { createTargetBreakers } from "../app/orchestrator/target-breakers.js";
import { createTargetFailureCounter } from "../app/orchestrator/target-failure-counter.js";
import { createTargetLimiter } from "../app/orchestrator/target-limits.js";
import { adaptiveSettingsFor } from "../core/adaptive-limit.js";
import { DEFAULT_BREAKER_SETTINGS } from "../core/circuit-breaker.js";
import type { Log, Metrics } from "../core/observability.js";
import type {
  DeadLetterQueue,
  EventStore,
  IngressQueue,
  TargetLimitsStore,
  TargetRouter,
  TargetStateStore,
} from "../core/ports.js";
import { type Clock, type RandomSource, systemClock, systemRandom } from "../core/random.js";
import type { DeliverySigner } from "../core/signing.js";
import { targetKeying } from "../core/target-groups.js";
import { targetSettingsResolver } from "../core/target-settings.js";
import type { Tracer } from "../core/tracing.js";
import { type RicochetConfig, retentionSeconds } from "./config.js";
import type { loadTracer } from "./tracing.js";

/** Lease time kept beyond the target's timeout: covers the result write and modest clock skew. */
export const DEFAULT_LEASE_MARGIN_MS = 5_000;

/**
 * How long a re-send made outside a batch (no send gathering) waits for others to share its
 * `SendMessageBatch`; every such re-send is late by at most this. A batch's own re-sends wait
 * for the batch instead, up to `sendGatherMaxMs`.
 */
const SEND_BATCH_WINDOW_MS = 10;

/**
 * The longest a batch's re-send waits for the batch's other messages: a tenth of the lease margin
 * (500 ms with the default margin), so an attempt's result write still comes well inside its
 * lease. Time-scaled runs (the chaos test) pass their own margin's tenth.
 */
export const sendGatherMaxMsFor = (leaseMarginMs: number): number => leaseMarginMs / 10;

/**
 * A process's worker id: 72 random bits, enough to tell concurrent instances apart, in 14
 * characters. It is stored in the lease and in every history entry, where a UUID's 43 cost a
 * retried record its place under DynamoDB's 1 KB write unit.
 */
export const newWorkerId = (): string => `w-${randomBytes(9).toString("base64url")}`;

/** The adapters one process uses, built from configuration and SDK clients. */
export interface RicochetPorts {
  readonly store: EventStore;
  readonly ingress: IngressQueue;
  readonly deadLetters: DeadLetterQueue;
  readonly targets: TargetRouter;
  readonly targetState: TargetStateStore;
  readonly targetLimits: TargetLimitsStore;
}

export const createPorts = (
  config: RicochetConfig,
  clients: AwsClients,
  options: {
    readonly signer?: DeliverySigner | undefined;
    /** Default: {@link sendGatherMaxMsFor} the default lease margin. */
    readonly sendGatherMaxMs?: number | undefined;
  } = {},
): RicochetPorts => {
  const signer =
    options.signer ??
    (config.signingSecret === undefined
      ? undefined
      : createSecretSigner({
          reference: config.signingSecret,
          legacySignatures: config.legacySignatures,
        }));
  return {
    store: createDynamoEventStore({ doc: clients.documents, tableName: config.tableName }),
    targetState: createDynamoTargetStateStore({
      doc: clients.documents,
      tableName: config.tableName,
    }),
    targetLimits: createDynamoTargetLimitsStore({
      doc: clients.documents,
      tableName: config.tableName,
    }),
    ingress: createSqsIngressQueue({
      sqs: clients.sqs,
      ingressQueueUrl: config.ingressQueueUrl,
      internalQueueUrl: config.internalQueueUrl,
      maxDelaySeconds: config.hopSeconds,
      sendWindowMs: SEND_BATCH_WINDOW_MS,
      sendGatherMaxMs: options.sendGatherMaxMs ?? sendGatherMaxMsFor(DEFAULT_LEASE_MARGIN_MS),
    }),
    deadLetters: createSqsDeadLetterQueue({
      sqs: clients.sqs,
      queueUrl: config.deadLetterQueueUrl,
    }),
    targets: createTargetRouter({
      http: createHttpTarget({
        allowedHosts: config.allowedTargetHosts,
        secretHeaderNames: config.secretHeaders,
        ...(signer === undefined ? {} : { signer }),
      }),
      lambda: createLambdaTarget({
        lambda: clients.lambda,
        rules: {
          ownFunctions: config.ownFunctionNames,
          accountId: config.accountId,
          allowedArns: config.lambdaTargets,
        },
      }),
    }),
  };
};

export interface OrchestratorRuntimeOptions {
  readonly config: RicochetConfig;
  readonly ports: RicochetPorts;
  readonly log: Log;
  readonly metrics: Metrics;
  readonly clock?: Clock;
  readonly random?: RandomSource;
  readonly workerId?: string;
  readonly leaseMarginMs?: number;
  /** Spans of messages and calls ({@link loadTracer}); none by default. */
  readonly tracer?: Tracer | undefined;
}

/** The orchestrator wired for a real process (Lambda, `npm start`, benchmarks). */
export const createOrchestratorRuntime = (options: OrchestratorRuntimeOptions): Orchestrator => {
  const { config, ports } = options;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? systemRandom;
  const workerId = options.workerId ?? newWorkerId();
  const targets = targetSettingsResolver(
    config.circuitBreaker ?? DEFAULT_BREAKER_SETTINGS,
    config.targets,
  );
  const deps: OrchestratorDeps = {
    ...ports,
    clock,
    random,
    workerId,
    hopSeconds: config.hopSeconds,
    retentionSeconds: retentionSeconds(config.recordRetentionDays),
    defaultPolicy: config.defaultPolicy,
    policyLimits: config.policyLimits,
    log: options.log,
    metrics: options.metrics,
    messageConcurrency: config.messageConcurrency,
    leaseMarginMs: options.leaseMarginMs ?? DEFAULT_LEASE_MARGIN_MS,
    // With the breakers off, failures are still counted, for `ricochet targets` and the console.
    breakers:
      config.circuitBreaker === undefined
        ? createTargetFailureCounter({
            store: ports.targetState,
            settingsFor: (key) => targets.settingsFor(key).breaker,
            clock,
            log: options.log,
          })
        : createTargetBreakers({
            store: ports.targetState,
            settings: config.circuitBreaker,
            settingsFor: (key) => targets.settingsFor(key).breaker,
            clock,
            log: options.log,
          }),
    limits: targets.limited
      ? createTargetLimiter({
          store: ports.targetLimits,
          limitsFor: targets.settingsFor,
          clock,
          random,
          log: options.log,
          instanceId: workerId,
        })
      : undefined,
    adaptive: config.adaptiveLimits
      ? createAdaptiveLimiter({
          settingsFor: (key) => {
            const settings = targets.settingsFor(key);
            return adaptiveSettingsFor(settings, settings.breaker.minCountedTimeoutMs);
          },
          clock,
          random,
          log: options.log,
          // The lease owner's id names this instance's entry on the target's item.
          publish: { store: ports.targetState, instanceId: workerId },
        })
      : undefined,
    metricTargets: new Set(config.targetMetrics),
    targetKeyOf: targetKeying(config.targets?.groups),
    tracer: options.tracer,
  };
  return createOrchestrator(deps);
};
