import { setTimeout as sleep } from "node:timers/promises";
import type { AwsClients } from "../adapters/aws-clients.js";
import type { OperatorFunctionDeps } from "../app/operator/operator-function.js";
import type { Log, Metrics } from "../core/observability.js";
import { systemClock } from "../core/random.js";
import { CallerSource } from "../core/record.js";
import { DEFAULT_STUCK_LOOKBACK_DAYS } from "../core/stuck.js";
import { type RicochetConfig, retentionSeconds } from "./config.js";
import { createOperatorPorts } from "./create-operator-ports.js";

/** The most stuck events one sweep names in its log and report. */
const STUCK_LOG_LIMIT = 100;

/**
 * The operator function's wiring over the deployment's configuration: made once per container,
 * it answers each invocation's deps (fresh adapters, the invocation's own `shouldStop`).
 */
export const operatorFunctionDeps = (
  config: RicochetConfig,
  clients: AwsClients,
  observability?: { readonly metrics: Metrics; readonly log: Log },
): ((shouldStop: () => boolean) => OperatorFunctionDeps) => {
  const ports = createOperatorPorts({
    clients,
    resource: (name) => config[name],
    /*
     * The function's own role, as STS reports it: an Invoke carries no trace of its invoker into
     * the event or the context (`context.identity` is Cognito's, `clientContext` the invoker's
     * own words). So `caller` names the role that made the move, labelled as such, and `by` is
     * the invoker's claim; who invoked is in CloudTrail's Lambda data events.
     */
    callerSource: CallerSource.FUNCTION_ROLE,
    maxDelaySeconds: config.hopSeconds,
  });
  return (shouldStop) => ({
    deadLetterQueue: ports.deadLetterQueue(),
    ingressQueue: ports.ingressQueue(),
    store: ports.store(),
    clock: systemClock,
    sleep: (ms) => sleep(ms),
    defaultPolicy: config.defaultPolicy,
    policyLimits: config.policyLimits,
    shouldStop,
    callerIdentity: ports.callerIdentity(),
    retentionSeconds: retentionSeconds(config.recordRetentionDays),
    stuckSweep:
      observability === undefined
        ? undefined
        : {
            ...observability,
            settings: {
              stuckAfterSeconds: config.stuckAfterSeconds,
              lookbackDays: DEFAULT_STUCK_LOOKBACK_DAYS,
              // The count the alarm reads stops here too: one is enough to page.
              limit: STUCK_LOG_LIMIT,
            },
          },
  });
};
