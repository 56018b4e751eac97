import type { BreakerSettings } from "../../core/circuit-breaker.js";
import type { Log } from "../../core/observability.js";
import type { TargetStateStore } from "../../core/ports.js";
import type { Clock } from "../../core/random.js";
import { type CallEvidence, callEvidence, type EndedCall } from "../../core/target-health.js";
import { admitCall, type TargetAdmission } from "./target-breakers/admission.js";
import type { BreakersContext } from "./target-breakers/breaker-writes.js";
import { abandonProbe, recordCallEnd } from "./target-breakers/call-ends.js";

export type { TargetAdmission } from "./target-breakers/admission.js";

/** The per-instance face of the targets' shared breakers. */
export interface TargetBreakers {
  admit(key: string): Promise<TargetAdmission>;
  /**
   * Tells the breaker how an admitted call ended (`failed`: retryable or uncertain); `as` is the
   * verdict it was admitted with. `error` (the outcome's message, already redacted) becomes the
   * target's last error when the failure is written.
   */
  recordCall(key: string, failed: boolean, as: "call" | "probe", error?: string): Promise<void>;
  /** Gives back a probe that made no call (the event was a duplicate, say), so another may. */
  abandonProbe(key: string): Promise<void>;
  /**
   * What a call says about the target, by the target's own settings: only a failing or healthy
   * call is told to {@link recordCall}; a silent one is not counted at all (target-health.ts).
   */
  evidenceOf(key: string, call: EndedCall): CallEvidence;
}

export interface TargetBreakersDeps {
  readonly store: TargetStateStore;
  readonly settings: BreakerSettings;
  /** A target's own settings, when they differ from `settings` (per-key overrides). */
  readonly settingsFor?: ((key: string) => BreakerSettings) | undefined;
  readonly clock: Clock;
  readonly log: Log;
}

/**
 * Breakers shared through `store`, read through a per-instance cache, so that a closed breaker's
 * successful call costs no I/O at all. An instance learns the shared state when it writes: with
 * each write of its failures (at most one per `FAILURE_FLUSH_MS`, lib/core/breaker-cache.ts; the
 * write returns the item), and with each state change it attempts (a lost race returns the
 * winner's item). So every instance sees a breaker open at its first failure write after it
 * opened — within `FAILURE_FLUSH_MS` of a failure — and one probe at a time is let through
 * across all of them.
 *
 * A failing store never stops deliveries: the breaker then fails open (calls are made), with a
 * warning, since the attempt store on the same table decides whether anything can run at all.
 *
 * What the instance holds and when it writes it are pure rules (lib/core/breaker-cache.ts,
 * lib/core/pending-deferrals.ts); the reads and writes are in ./target-breakers/.
 */
export const createTargetBreakers = (deps: TargetBreakersDeps): TargetBreakers => {
  const settingsOf = deps.settingsFor ?? (() => deps.settings);
  const context: BreakersContext = {
    store: deps.store,
    clock: deps.clock,
    log: deps.log,
    settingsOf,
    views: new Map(),
    releases: new Map(),
    deferrals: new Map(),
  };
  return {
    admit: (key) => admitCall(context, key),
    recordCall: (key, failed, as, error) => recordCallEnd(context, { key, failed, as, error }),
    abandonProbe: (key) => abandonProbe(context, key),
    evidenceOf: (key, call) => callEvidence(call, settingsOf(key).minCountedTimeoutMs),
  };
};
