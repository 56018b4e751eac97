import { errorWithName } from "../../../core/errors.js";
import type { Log } from "../../../core/observability.js";
import type { Clock, RandomSource } from "../../../core/random.js";
import { slotRetryAt } from "../../../core/target-limits.js";

/** Which limit turned a call away. */
export const LimitKind = {
  RATE: "rate",
  CONCURRENCY: "concurrency",
} as const;
export type LimitKind = (typeof LimitKind)[keyof typeof LimitKind];

/** A call's leave to run: `release` after it, whatever happened (it never throws). */
export interface CallPermit {
  release(): Promise<void>;
}

/** What the orchestrator may do with a call to a target now, as far as its limits go. */
export type LimitAdmission =
  | { readonly verdict: "call"; readonly permit: CallPermit }
  /** Over a limit: defer the event to `untilMs` without spending an attempt. */
  | { readonly verdict: "defer"; readonly untilMs: number; readonly limit: LimitKind };

/** What the limiter's checks need beside their store: a clock, randomness and a log. */
export interface LimitsEnvironment {
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly log: Log;
}

/** A limit that cannot be checked is taken as reached: the target's bound is a promise. */
export const failClosed = (
  environment: LimitsEnvironment,
  key: string,
  limit: LimitKind,
  error: unknown,
): LimitAdmission => {
  environment.log.warn("target limits store failed; deferring the call", {
    target: key,
    limit,
    error: errorWithName(error),
  });
  return { verdict: "defer", untilMs: slotRetryAt(environment.clock(), environment.random), limit };
};
