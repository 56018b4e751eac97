import type { MetricName } from "../../contract/metric-names.js";
import { DEFAULT_TIMEOUT_MS, type Envelope } from "../../core/envelope.js";
import { DEFAULT_LAMBDA_TIMEOUT_MS } from "../../core/lambda-target-policy.js";
import { type Log, type Metrics, metricTargetOf } from "../../core/observability.js";
import type { RetryPolicy } from "../../core/policy.js";
import type { DEFAULT_POLICY_LIMITS, PolicyLimits } from "../../core/policy-limits.js";
import {
  MessageOrigin,
  type MessageSchedule,
  type ReceivedMessage,
  type TargetRouter,
} from "../../core/ports.js";
import { type TargetKeying, targetKeying } from "../../core/target-groups.js";
import type { AdaptiveLimiter } from "./adaptive-limits.js";
import type { AttemptDeps } from "./attempt.js";
import type { TargetBreakers } from "./target-breakers.js";
import type { TargetLimiter } from "./target-limits.js";

/*
 * What the orchestrator's steps share: its dependencies, and the few facts every step reads the
 * same way (a message's schedule, a call's length, how an outcome is counted).
 */

/** Everything the orchestrator needs, injected so Lambda, local runs and the simulation share it. */
export interface OrchestratorDeps extends AttemptDeps {
  readonly targets: TargetRouter;
  readonly defaultPolicy: RetryPolicy;
  /** Bounds an event's policy override is clamped to (default {@link DEFAULT_POLICY_LIMITS}). */
  readonly policyLimits?: PolicyLimits | undefined;
  readonly log: Log;
  readonly metrics: Metrics;
  /** Messages of one batch attempted at once. */
  readonly messageConcurrency: number;
  /** Added to the target's timeout to make the lease, and kept free before the function's end. */
  readonly leaseMarginMs: number;
  /** The targets' circuit breakers; without them every event is attempted on its own. */
  readonly breakers?: TargetBreakers | undefined;
  /** The targets' concurrency and rate limits; without them no target is limited. */
  readonly limits?: TargetLimiter | undefined;
  /** Each target's limit learned from its calls, held in memory; without it none is learned. */
  readonly adaptive?: AdaptiveLimiter | undefined;
  /** Target keys whose outcomes are also counted under their own `target` dimension value. */
  readonly metricTargets?: ReadonlySet<string> | undefined;
  /** The declared target groups' lookup; without it every target is its own key. */
  readonly targetKeyOf?: TargetKeying | undefined;
}

/** What to do with one message once the orchestrator is done with it. */
export type MessageVerdict =
  /** Delete it: its effect is durable (recorded, re-enqueued or dead-lettered) or it is a duplicate. */
  | { readonly kind: "ack" }
  /** Leave it: it comes back after its visibility timeout (already adjusted where that matters). */
  | { readonly kind: "retry_later"; readonly reason: string };

export const ACK: MessageVerdict = { kind: "ack" };

/** The orchestrator's dependencies with the defaults its steps would otherwise each resolve. */
export interface OrchestratorContext {
  readonly deps: OrchestratorDeps;
  readonly keyOf: TargetKeying;
  /**
   * Counts an event's outcome, and again under its target's dimension value when the deployment
   * names targets for metrics (none named: no per-target metric at all). `targetKey` is the
   * event's target's key under the declared groups.
   */
  countOutcome(name: MetricName, targetKey: string): void;
}

export const orchestratorContext = (deps: OrchestratorDeps): OrchestratorContext => {
  const metricTargets = deps.metricTargets ?? new Set<string>();
  const keyOf = deps.targetKeyOf ?? targetKeying(undefined);
  return {
    deps,
    keyOf,
    countOutcome: (name, targetKey) => {
      deps.metrics.count(name);
      if (metricTargets.size === 0) return;
      deps.metrics.countForTarget(name, metricTargetOf(targetKey, metricTargets));
    },
  };
};

/** A producer's message always starts an event: generation 0, due now. */
const PRODUCER_SCHEDULE: MessageSchedule = { generation: 0 };

/** The message's schedule, if it may be believed: only Ricochet's own queue carries one. */
export const scheduleOf = (message: ReceivedMessage): MessageSchedule =>
  message.origin === MessageOrigin.RICOCHET ? message.schedule : PRODUCER_SCHEDULE;

const timeoutOf = (envelope: Envelope): number =>
  envelope.target.type === "http"
    ? (envelope.target.timeoutMs ?? DEFAULT_TIMEOUT_MS)
    : DEFAULT_LAMBDA_TIMEOUT_MS;

/** How long a call to the envelope's target may take: its timeout, cut to `budgetMs`. */
export const callMsOf = (envelope: Envelope, budgetMs: number): number =>
  Math.min(timeoutOf(envelope), budgetMs);
