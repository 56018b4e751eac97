import type { BreakerSettings } from "../core/circuit-breaker.js";
import type { RetryPolicy } from "../core/policy.js";
import type { PolicyLimits } from "../core/policy-limits.js";
import type {
  CallerIdentity,
  DeadLetterQueue,
  EventStore,
  IngressQueue,
  TargetStateStore,
} from "../core/ports.js";

/**
 * What the console reads and acts through: the same ports and deployment settings the CLI's
 * commands use, built by whoever starts it (`ricochet console` from the operator's credentials,
 * `npm start` from the local session).
 */
export interface ConsoleDeps {
  readonly store: EventStore;
  readonly deadLetterQueue: DeadLetterQueue;
  /** Where a redrive sends events back (Ricochet's internal queue). */
  readonly ingressQueue: IngressQueue;
  readonly targetState: TargetStateStore;
  /** Who AWS says runs the console, for audit entries, as for the CLI. */
  readonly callerIdentity: CallerIdentity;
  /** The deployment's default policy: the planned schedule, and budgets a redrive grants. */
  readonly defaultPolicy: RetryPolicy;
  readonly policyLimits: PolicyLimits;
  /**
   * The deployment's circuit breakers' settings, undefined when they are off: the targets page
   * says which, and counts the targets' failures in their window.
   */
  readonly breakers: BreakerSettings | undefined;
  /** Who the audit entries say asked (`--by`, default "console"). */
  readonly by: string;
  readonly clock: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Seconds between refreshes of the event list. */
  readonly refreshSeconds: number;
}
