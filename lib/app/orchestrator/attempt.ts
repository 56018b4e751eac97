import { DEAD_LETTER_KIND, DEAD_LETTER_VERSION } from "../../core/dead-letter.js";
import {
  DeadLetterReason,
  type Decision,
  decideAfterAttempt,
  effectiveDeadlineMs,
} from "../../core/decide.js";
import type { Envelope } from "../../core/envelope.js";
import {
  type AttemptResult,
  classify,
  type Outcome,
  OutcomeClass,
  refusedBeforeCall,
  retryAfterOf,
  timedOutBeforeSending,
} from "../../core/outcome.js";
import type { RetryPolicy } from "../../core/policy.js";
import type {
  DeadLetterQueue,
  DeliveryTarget,
  EventStore,
  IngressQueue,
  RecordResultOutcome,
} from "../../core/ports.js";
import type { Clock, RandomSource } from "../../core/random.js";
import type { AttemptEntry, EventRecord, PendingDeadLetter } from "../../core/record.js";
import { EventStatus } from "../../core/status.js";
import type { EndedCall } from "../../core/target-health.js";
import { isoOf } from "../../core/time-format.js";
import { type TraceContext, traceHeaders } from "../../core/trace-context.js";
import { NO_TRACING, SpanName, type Tracer, targetCallAttributes } from "../../core/tracing.js";

/** What one claimed attempt needs beyond the message itself. */
export interface AttemptDeps {
  readonly store: EventStore;
  readonly ingress: IngressQueue;
  readonly deadLetters: DeadLetterQueue;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly workerId: string;
  readonly hopSeconds: number;
  readonly retentionSeconds: number;
  /** Spans for the target's calls (default {@link NO_TRACING}). */
  readonly tracer?: Tracer | undefined;
}

export interface ClaimedAttempt {
  readonly envelope: Envelope;
  /** The message body exactly as received, re-sent unchanged on a retry and dead-lettered as is. */
  readonly body: string;
  readonly policy: RetryPolicy;
  readonly record: EventRecord;
  readonly target: DeliveryTarget;
  /** The key its breaker and limits are kept under, told to the dead-letter copy. */
  readonly targetKey: string;
  /**
   * How long the call may take: the target's timeout, cut to what the function has left and to
   * what the claim's lease has left less the margin, so that the call ends before the lease does.
   */
  readonly callTimeoutMs: number;
  /**
   * Whether `callTimeoutMs` is shorter than the call's own length because the claim's write ate
   * into the lease. A call that then times out before its request is sent was never made: the
   * time ran out on Ricochet's side, and the attempt is given back.
   */
  readonly callCutByLease: boolean;
  /** The producer's trace context: handed to the target and carried on the retry's message. */
  readonly trace?: TraceContext | undefined;
}

/**
 * How an attempt ended, for metrics, the breaker and whether the message may be deleted: finished
 * (its result recorded), or the store's own `lease_lost` answer passed on unchanged — someone else
 * owns the event now, and what this attempt decided no longer matters.
 */
export type AttemptEnd =
  | {
      readonly kind: "finished";
      readonly decision: Decision;
      readonly outcome: Outcome;
      readonly latencyMs: number;
      /**
       * The call made, for the target's breaker; undefined when none was (a deadline, budget or
       * earlier decision ended the attempt first).
       */
      readonly call?: EndedCall | undefined;
    }
  | LeaseLost;

type LeaseLost = Extract<RecordResultOutcome, { kind: "lease_lost" }>;

const deadlinePassed: Outcome = {
  class: OutcomeClass.PERMANENT,
  message: "deadline passed before the attempt could start",
};

/**
 * A takeover past the budget: the last allowed attempt was made, and its result never recorded
 * (its worker died, or the write or the dead-letter send after it failed). Calling again would
 * exceed the budget the producer set, so the event is dead-lettered without a call.
 */
const budgetSpent: Outcome = {
  class: OutcomeClass.RETRYABLE,
  message: "budget spent: the last attempt's result was lost (worker stopped or a write failed)",
};

/** A call whose time Ricochet's own slow claim used up, so that it timed out before it was sent. */
const ranOutOfTime = (claimed: ClaimedAttempt, result: AttemptResult): boolean =>
  claimed.callCutByLease && timedOutBeforeSending(result);

const outOfTimeOutcome: Outcome = {
  class: OutcomeClass.RETRYABLE,
  message: "not sent: the claim's write took the time the lease left for the call",
};

const decisionOf = (pending: PendingDeadLetter): Decision =>
  pending.reason === DeadLetterReason.REJECTED
    ? { kind: "rejected" }
    : { kind: "dead_letter", reason: pending.reason };

/** Sends the dead-letter copy a decision describes, then records the event's end. */
const sendDeadLetter = async (
  deps: AttemptDeps,
  claimed: ClaimedAttempt,
  pending: PendingDeadLetter,
): Promise<RecordResultOutcome> => {
  const { envelope, record } = claimed;
  const rejected = pending.reason === DeadLetterReason.REJECTED;
  await deps.deadLetters.send({
    kind: DEAD_LETTER_KIND,
    version: DEAD_LETTER_VERSION,
    reason: pending.reason,
    eventId: envelope.eventId,
    targetKey: claimed.targetKey,
    body: claimed.body,
    attempts: pending.attempts,
    generation: pending.generation,
    lastOutcome: pending.lastOutcome,
    deadLetteredAt: pending.decidedAt,
    ...traceHeaders(claimed.trace),
  });
  const nowMs = deps.clock();
  return deps.store.recordResult({
    eventId: envelope.eventId,
    worker: deps.workerId,
    generation: record.generation,
    newGeneration: record.generation,
    claimed: record,
    entry: pending.entry,
    nowMs,
    retentionSeconds: deps.retentionSeconds,
    status: rejected ? EventStatus.REJECTED : EventStatus.DEAD_LETTERED,
    deadLetterReason: pending.reason,
    // The count the copy reports: a takeover that finishes the decision makes no call of its own.
    attempts: pending.attempts,
  });
};

/**
 * A takeover of an event whose previous holder decided to dead-letter it and may have sent the
 * copy already: the decision is finished as made (the same copy again at worst, which redrive
 * treats as one), never a new call that could deliver the event beside its dead-letter copy.
 */
const finishPendingDeadLetter = async (
  deps: AttemptDeps,
  claimed: ClaimedAttempt,
  pending: PendingDeadLetter,
): Promise<AttemptEnd> => {
  const written = await sendDeadLetter(deps, claimed, pending);
  if (written.kind === "lease_lost") return written;
  return {
    kind: "finished",
    decision: decisionOf(pending),
    outcome: pending.lastOutcome,
    latencyMs: 0,
  };
};

/** What a call to the target gave: its result, how it is classified, when it was sent. */
interface MadeCall {
  readonly result: AttemptResult;
  readonly outcome: Outcome;
  readonly sentAtMs: number | undefined;
}

/**
 * Calls the target in its own span, whose context the target is handed (the producer's, with
 * tracing off), and classifies the result.
 */
const callTarget = async (
  deps: AttemptDeps,
  claimed: ClaimedAttempt,
  policy: RetryPolicy,
): Promise<MadeCall> => {
  const { envelope, record } = claimed;
  const span = (deps.tracer ?? NO_TRACING).start(SpanName.TARGET_CALL, claimed.trace, {
    ...targetCallAttributes(envelope.target),
    "ricochet.event_id": envelope.eventId,
    "ricochet.attempt": record.attempts,
    "ricochet.generation": record.generation,
    "ricochet.target_key": claimed.targetKey,
    // OpenTelemetry's HTTP conventions count the retries before this call.
    "http.request.resend_count": record.attempts - 1,
  });
  let sentAtMs: number | undefined;
  const result = await claimed.target.deliver({
    envelope,
    attempt: record.attempts,
    timeoutMs: claimed.callTimeoutMs,
    replay: record.replays,
    trace: span.context,
    onSent: () => {
      sentAtMs = deps.clock();
    },
  });
  // Retried whatever the policy says of timeouts: the target was never asked.
  const outcome = ranOutOfTime(claimed, result) ? outOfTimeOutcome : classify(result, policy);
  span.end(
    {
      "http.response.status_code": outcome.statusCode,
      "error.type": outcome.errorCategory,
      "ricochet.outcome": outcome.class,
    },
    outcome.class !== OutcomeClass.SUCCESS,
  );
  return { result, outcome, sentAtMs };
};

/**
 * Runs one claimed attempt to its end: call the target (unless the deadline has passed), decide
 * what follows, make that durable, then record the result.
 *
 * The order is what keeps "nothing accepted is lost": whatever must outlive this attempt — the
 * next message, or the dead-letter copy — is sent BEFORE the record says so, and the source
 * message is deleted only after both. A crash in between leaves the source message to come back,
 * and the generation check turns any extra copy into a harmless duplicate.
 */
export const runClaimedAttempt = async (
  deps: AttemptDeps,
  claimed: ClaimedAttempt,
): Promise<AttemptEnd> => {
  const { envelope, policy, record } = claimed;
  if (record.pendingDeadLetter !== undefined) {
    return finishPendingDeadLetter(deps, claimed, record.pendingDeadLetter);
  }
  const claimedAtMs = deps.clock();
  const deadlineMs = effectiveDeadlineMs(envelope.deadline, policy, Date.parse(record.createdAt));

  let sentAtMs: number | undefined;
  let outcome: Outcome;
  let retryAfter: string | undefined;
  let call: EndedCall | undefined;
  if (deadlineMs !== undefined && claimedAtMs > deadlineMs) {
    outcome = deadlinePassed;
  } else if (record.attempts > record.attemptBudget) {
    outcome = budgetSpent;
  } else {
    const made = await callTarget(deps, claimed, policy);
    sentAtMs = made.sentAtMs;
    call = { result: made.result, timeoutMs: claimed.callTimeoutMs };
    outcome = made.outcome;
    retryAfter = retryAfterOf(made.result);
  }
  const finishedAtMs = deps.clock();

  // A run Ricochet ends before trying the target (deadline or budget passed, a target its rules
  // refuse, a call its own slow claim left no time to send) gives its claim's attempt back, so
  // that the count is the calls made. A refusal the producer's policy retries keeps it: the
  // budget must still end an event whose target can never be tried, and an exhausted event has
  // spent its whole budget. A call cut by the lease is retried on the budget it had.
  const outOfTime = outcome === outOfTimeOutcome;
  const noCall = call === undefined || outOfTime || refusedBeforeCall(call.result);
  const givesBack =
    call === undefined || outOfTime || (noCall && outcome.class === OutcomeClass.PERMANENT);
  const attempts = givesBack ? record.attempts - 1 : record.attempts;

  const decision: Decision =
    outcome === deadlinePassed
      ? { kind: "dead_letter", reason: "deadline" }
      : outcome === budgetSpent
        ? { kind: "dead_letter", reason: "exhausted" }
        : decideAfterAttempt({
            policy,
            outcome,
            retryAfter,
            attemptsMade: attempts,
            attemptBudget: record.attemptBudget,
            deadlineMs,
            previousDelaySeconds: record.lastDelaySeconds,
            nowMs: finishedAtMs,
            random: deps.random,
          });

  const entry: AttemptEntry = {
    attempt: attempts,
    worker: deps.workerId,
    claimedAt: record.currentAttempt?.claimedAt ?? isoOf(claimedAtMs),
    sentAt: sentAtMs === undefined ? undefined : isoOf(sentAtMs),
    finishedAt: isoOf(finishedAtMs),
    outcome: outcome.class,
    statusCode: outcome.statusCode,
    errorCategory: outcome.errorCategory,
    message: outcome.message,
    delaySeconds: decision.kind === "retry" ? decision.delaySeconds : undefined,
    noCall: noCall ? true : undefined,
    traceId: claimed.trace?.traceId,
  };

  const base = {
    eventId: envelope.eventId,
    worker: deps.workerId,
    generation: record.generation,
    newGeneration: record.generation,
    claimed: record,
    entry,
    nowMs: finishedAtMs,
    retentionSeconds: deps.retentionSeconds,
    attempts: givesBack ? attempts : undefined,
  };

  let written: RecordResultOutcome;
  switch (decision.kind) {
    case "delivered":
      written = await deps.store.recordResult({ ...base, status: EventStatus.DELIVERED });
      break;
    case "retry": {
      const newGeneration = record.generation + 1;
      const needsHops = decision.delaySeconds > deps.hopSeconds;
      await deps.ingress.send(
        claimed.body,
        {
          generation: newGeneration,
          notBeforeMs: needsHops ? decision.notBeforeMs : undefined,
          trace: claimed.trace,
        },
        Math.min(decision.delaySeconds, deps.hopSeconds),
      );
      written = await deps.store.recordResult({
        ...base,
        newGeneration,
        status: EventStatus.RETRY_SCHEDULED,
        nextAttemptAt: isoOf(decision.notBeforeMs),
      });
      break;
    }
    case "rejected":
    case "dead_letter": {
      const pending: PendingDeadLetter = {
        reason: decision.kind === "rejected" ? DeadLetterReason.REJECTED : decision.reason,
        entry,
        lastOutcome: outcome,
        generation: record.generation,
        attempts,
        decidedAt: isoOf(finishedAtMs),
      };
      const noted = await deps.store.recordPendingDeadLetter({
        eventId: envelope.eventId,
        worker: deps.workerId,
        generation: record.generation,
        pending,
        nowMs: finishedAtMs,
      });
      if (noted.kind === "lease_lost") return noted;
      written = await sendDeadLetter(deps, claimed, pending);
      break;
    }
  }
  if (written.kind === "lease_lost") return written;
  return {
    kind: "finished",
    decision,
    outcome,
    latencyMs: finishedAtMs - claimedAtMs,
    // A call Ricochet ran out of time to send tells the target's breaker nothing.
    call: outOfTime ? undefined : call,
  };
};
