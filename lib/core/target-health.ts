import { type AttemptResult, naturalClass, OutcomeClass, REFUSAL_CATEGORIES } from "./outcome.js";
import { ErrorCategory } from "./policy.js";

/*
 * What one call says about its target's health, for the target's circuit breaker. A breaker is
 * shared by every producer whose events go to the target, so only what the target itself shows
 * may count: one producer must not be able to open it for everyone with calls that were doomed
 * by the producer's own choices or by Ricochet's side (issue #31, finding 3).
 */

/** What a call tells the target's breaker. */
export const CallEvidence = {
  /** The target answered (2xx, or a refusal of the event such as a 4xx): it is up. */
  HEALTHY: "healthy",
  /** The target failed the call: 5xx, 429, refused or reset the connection, timed out. */
  FAILING: "failing",
  /** Nothing about the target: the call is not counted either way. */
  SILENT: "silent",
} as const;
export type CallEvidence = (typeof CallEvidence)[keyof typeof CallEvidence];

/** A call that was made: its result and the timeout it was given (after every cut). */
export interface EndedCall {
  readonly result: AttemptResult;
  readonly timeoutMs: number;
}

/**
 * What `call` says about its target. Silent: a refusal of the envelope (invalid target, address
 * refused), a failure on Ricochet's side before anything went to the target
 * (`beforeContact`), and a timeout of a call given less than `minCountedTimeoutMs` — a producer's
 * 100 ms to a partner that answers in 300 ms is the producer's choice, not the partner's failure
 * (and a call whose time was spent before it started is cut to less than that too). Otherwise the
 * result's natural class decides, before any policy's lists: a producer's `retryOnStatus: [400]`
 * makes its own events retry, never the target's breaker count a 400 as a failure.
 */
export const callEvidence = (call: EndedCall, minCountedTimeoutMs: number): CallEvidence => {
  const { result } = call;
  if (result.kind === "error") {
    if (result.beforeContact === true || REFUSAL_CATEGORIES.has(result.category))
      return CallEvidence.SILENT;
    if (result.category === ErrorCategory.TIMEOUT && call.timeoutMs < minCountedTimeoutMs)
      return CallEvidence.SILENT;
  }
  const natural = naturalClass(result);
  return natural === OutcomeClass.RETRYABLE || natural === OutcomeClass.UNCERTAIN
    ? CallEvidence.FAILING
    : CallEvidence.HEALTHY;
};
