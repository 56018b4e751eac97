import type { RetryPolicy } from "../../core/policy.js";
import type { DEFAULT_POLICY_LIMITS, PolicyLimits } from "../../core/policy-limits.js";
import type {
  CallerIdentity,
  DeadLetterQueue,
  EventStore,
  IngressQueue,
} from "../../core/ports.js";
import type { Clock } from "../../core/random.js";

/** What redrive needs. `sleep` and `clock` are injected so rate limiting is testable. */
export interface RedriveDeps {
  readonly deadLetterQueue: DeadLetterQueue;
  readonly ingressQueue: IngressQueue;
  readonly store: EventStore;
  readonly clock: Clock;
  readonly sleep: (ms: number) => Promise<void>;
  /** The deployment's policy, for `resetAttempts` (an envelope's override wins). */
  readonly defaultPolicy: RetryPolicy;
  /** The deployment's bounds on an envelope's override; default {@link DEFAULT_POLICY_LIMITS}. */
  readonly policyLimits?: PolicyLimits | undefined;
  /** How long scanned messages stay hidden if the run dies before giving them back. */
  readonly scanVisibilitySeconds?: number;
  /** Asked before each move; true stops the run (a Lambda near its deadline). */
  readonly shouldStop?: () => boolean;
  /** Progress for displays: `phase` scan counts messages seen, move counts messages handled. */
  readonly onProgress?: (progress: RedriveProgress) => void;
  /**
   * Who AWS says runs the redrive, for the audit entries' `caller`; asked once, on the first
   * move. Never taken from the request: a request is the invoker's word, not AWS's. Without it,
   * entries have no `caller`.
   */
  readonly callerIdentity?: CallerIdentity | undefined;
}

export interface RedriveProgress {
  readonly phase: "scan" | "move";
  readonly done: number;
  readonly total?: number | undefined;
}
