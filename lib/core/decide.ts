import { drawDelaySeconds } from "./backoff.js";
import { type Outcome, OutcomeClass } from "./outcome.js";
import type { RetryPolicy } from "./policy.js";
import type { RandomSource } from "./random.js";
import { parseRetryAfter } from "./retry-after.js";

/** Why an event left for the dead-letter queue. */
export const DeadLetterReason = {
  EXHAUSTED: "exhausted",
  DEADLINE: "deadline",
  REJECTED: "rejected",
  INVALID_ENVELOPE: "invalid_envelope",
  /**
   * Not sent by Ricochet: the queue's native `maxReceiveCount` redrive moved the producer's raw
   * message here after the function failed on it repeatedly (a crash loop). Its record, if any,
   * is stranded mid-flight; redrive can bring it back.
   */
  UNPROCESSED: "unprocessed",
} as const;
export type DeadLetterReason = (typeof DeadLetterReason)[keyof typeof DeadLetterReason];

/** What happens to an event after one attempt. */
export type Decision =
  | { readonly kind: "delivered" }
  | { readonly kind: "rejected" }
  | { readonly kind: "dead_letter"; readonly reason: "exhausted" | "deadline" }
  | {
      readonly kind: "retry";
      /** 1 for the first retry. */
      readonly retryNumber: number;
      readonly delaySeconds: number;
      readonly notBeforeMs: number;
      /** Whether a Retry-After hint raised the drawn delay. */
      readonly retryAfterApplied: boolean;
    };

export interface DecisionInput {
  readonly policy: RetryPolicy;
  readonly outcome: Outcome;
  /** Raw Retry-After from the target, if any. */
  readonly retryAfter?: string | undefined;
  /** Attempts made so far, the one just finished included. */
  readonly attemptsMade: number;
  /** Attempts allowed in total (the policy's maxAttempts, or what a redrive granted). */
  readonly attemptBudget: number;
  /** Epoch ms after which no attempt may start, if the event has a deadline. */
  readonly deadlineMs?: number | undefined;
  readonly previousDelaySeconds?: number | undefined;
  readonly nowMs: number;
  readonly random: RandomSource;
}

/**
 * Decides what follows an attempt: deliver, reject, dead-letter or retry after a delay.
 * The delay is drawn by the policy's jitter, raised to any Retry-After hint (capped by
 * `maxRetryAfterSeconds`), and clamped so the retry starts no later than the deadline; if the
 * hint alone would pass the deadline, the event is dead-lettered with reason `deadline`.
 */
export const decideAfterAttempt = (input: DecisionInput): Decision => {
  const { policy, outcome, nowMs } = input;
  if (outcome.class === OutcomeClass.SUCCESS) return { kind: "delivered" };
  if (outcome.class === OutcomeClass.PERMANENT) return { kind: "rejected" };
  if (input.attemptsMade >= input.attemptBudget)
    return { kind: "dead_letter", reason: "exhausted" };

  const retryNumber = input.attemptsMade;
  const drawn = drawDelaySeconds(policy, retryNumber, input.random, input.previousDelaySeconds);
  const hint = parseRetryAfter(input.retryAfter, nowMs);
  const floor = hint === undefined ? 0 : Math.min(hint, policy.maxRetryAfterSeconds);
  let delaySeconds = Math.max(drawn, floor);

  if (input.deadlineMs !== undefined) {
    const secondsLeft = Math.floor((input.deadlineMs - nowMs) / 1000);
    if (secondsLeft < floor || secondsLeft < 0) return { kind: "dead_letter", reason: "deadline" };
    delaySeconds = Math.min(delaySeconds, secondsLeft);
  }
  return {
    kind: "retry",
    retryNumber,
    delaySeconds,
    notBeforeMs: nowMs + delaySeconds * 1000,
    retryAfterApplied: floor > drawn,
  };
};

/** Epoch ms after which no attempt may start: the earlier of the envelope's and the policy's. */
export const effectiveDeadlineMs = (
  envelopeDeadline: string | undefined,
  policy: RetryPolicy,
  firstSeenMs: number,
): number | undefined => {
  const candidates: number[] = [];
  if (envelopeDeadline !== undefined) candidates.push(Date.parse(envelopeDeadline));
  if (policy.deadlineSeconds !== undefined)
    candidates.push(firstSeenMs + policy.deadlineSeconds * 1000);
  return candidates.length === 0 ? undefined : Math.min(...candidates);
};
