import { adopted, type CachedBreaker, unseenBreaker } from "../../../core/breaker-cache.js";
import type { Breaker, BreakerSettings, DeferralQueue } from "../../../core/circuit-breaker.js";
import { errorWithName } from "../../../core/errors.js";
import type { Log } from "../../../core/observability.js";
import {
  deferralsWritten,
  type PendingDeferrals,
  pendingCount,
} from "../../../core/pending-deferrals.js";
import type { ReplaceBreakerResult, StoredBreaker, TargetStateStore } from "../../../core/ports.js";
import type { Clock } from "../../../core/random.js";

/** What every operation of the breakers works on: the shared store, and this instance's memory. */
export interface BreakersContext {
  readonly store: TargetStateStore;
  readonly clock: Clock;
  readonly log: Log;
  readonly settingsOf: (key: string) => BreakerSettings;
  /** This instance's view of each target's breaker (lib/core/breaker-cache.ts). */
  readonly views: Map<string, CachedBreaker>;
  /** Each target's line of deferred events, so none comes back faster than the release rate. */
  readonly releases: Map<string, DeferralQueue>;
  /** Each target's deferrals not written yet (lib/core/pending-deferrals.ts). */
  readonly deferrals: Map<string, PendingDeferrals>;
}

/** This instance's view of `key`'s breaker: a closed one until it has read or written it. */
export const viewOf = (context: BreakersContext, key: string): CachedBreaker =>
  context.views.get(key) ?? unseenBreaker(key, context.clock());

/** Takes what a write returned as this instance's view (see {@link adopted}). */
export const adopt = (context: BreakersContext, stored: StoredBreaker, restart: boolean): void => {
  const next = adopted(viewOf(context, stored.key), stored, restart, context.clock());
  if (next !== undefined) context.views.set(stored.key, next);
};

/** A write of `key`'s item landed at `nowMs` with `sent` deferrals: they are counted now. */
export const wrote = (context: BreakersContext, key: string, sent: number, nowMs: number): void => {
  const next = deferralsWritten(context.deferrals.get(key), sent, nowMs);
  if (next !== undefined) context.deferrals.set(key, next);
};

/** A store that cannot be asked never stops deliveries: the call is made, with a warning. */
export const failOpen = (
  context: BreakersContext,
  key: string,
  operation: string,
  error: unknown,
): void => {
  context.log.warn("target breaker store failed; calling as if the breaker were closed", {
    target: key,
    operation,
    error: errorWithName(error),
  });
};

/** A state change of `key`'s breaker from the one at `version`. */
export interface BreakerChange {
  readonly key: string;
  readonly version: number;
  readonly breaker: Breaker;
  readonly nowMs: number;
  /** The failure that made it, for a probe's answer. */
  readonly lastError?: string | undefined;
}

/** A version-guarded state change, taking this instance's deferrals along; adopts the result. */
export const replace = async (
  context: BreakersContext,
  change: BreakerChange,
): Promise<ReplaceBreakerResult> => {
  const { key, version, breaker, nowMs, ...extras } = change;
  const deferred = pendingCount(context.deferrals.get(key));
  const result = await context.store.replace({ key, version, breaker, nowMs, deferred, ...extras });
  if (result.kind === "replaced") wrote(context, key, deferred, nowMs);
  // A state change starts counting afresh: what was held belongs to the state it ended.
  adopt(context, result.stored, result.kind === "replaced");
  return result;
};
