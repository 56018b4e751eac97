import { DEAD_LETTER_KIND, DEAD_LETTER_VERSION } from "../../core/dead-letter.js";
import {
  DeadLetterReason,
  type Decision,
  decideAfterAttempt,
  effectiveDeadlineMs,
} from "../../core/decide.js";
import {
  type AttemptResult,
  classify,
  type Outcome,
  OutcomeClass,
  refusedBeforeCall,
  retryAfterOf,
  timedOutBeforeSending,
} from "../../core/outcome.js";
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
import { traceHeaders } from "../../core/trace-context.js";
import { NO_TRACING, SpanName, type Tracer, targetCallAttributes } from "../../core/tracing.js";
import type { MessageInHand } from "./message-in-hand.js";

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

/** An attempt the claim gave: the message it is for, the record it claimed, how to call. */
export interface ClaimedAttempt {
  /**
   * The message claimed for. Its body, exactly as received, is re-sent unchanged on a retry and
   * dead-lettered as is; its trace context is handed to the target and carried on the retry's
   * message; its target's key is told to the dead-letter copy.
   */
  readonly inHand: MessageInHand;
  readonly record: EventRecord;
  readonly target: DeliveryTarget;
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
  const { record } = claimed;
  const { envelope, message, target } = claimed.inHand;
  const rejected = pending.reason === DeadLetterReason.REJECTED;
  await deps.deadLetters.send({
    kind: DEAD_LETTER_KIND,
    version: DEAD_LETTER_VERSION,
    reason: pending.reason,
    eventId: envelope.eventId,
    targetKey: target.key,
    body: message.body,
    attempts: pending.attempts,
    generation: pending.generation,
    lastOutcome: pending.lastOutcome,
    deadLetteredAt: pending.decidedAt,
    ...traceHeaders(message.trace),
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
const callTarget = async (deps: AttemptDeps, claimed: ClaimedAttempt): Promise<MadeCall> => {
  const { record } = claimed;
  const { envelope, policy, message, target } = claimed.inHand;
  const span = (deps.tracer ?? NO_TRACING).start(SpanName.TARGET_CALL, message.trace, {
    ...targetCallAttributes(envelope.target),
    "ricochet.event_id": envelope.eventId,
    "ricochet.attempt": record.attempts,
    "ricochet.generation": record.generation,
    "ricochet.target_key": target.key,
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
 * An attempt once its call is made or forgone, before its decision: what it came to, when, and
 * how it counts against the budget.
 */
interface TriedAttempt {
  readonly claimedAtMs: number;
  readonly finishedAtMs: number;
  readonly deadlineMs: number | undefined;
  readonly outcome: Outcome;
  readonly sentAtMs?: number | undefined;
  /** The target's `Retry-After`, if it answered with one. */
  readonly retryAfter?: string | undefined;
  /** The call made; undefined when the deadline or the budget forwent it. */
  readonly call?: EndedCall | undefined;
  /** A call Ricochet's own slow claim left no time to send. */
  readonly outOfTime: boolean;
  /** Whether the target was never asked: no call, one not sent, or one its rules refused. */
  readonly noCall: boolean;
  /** Whether the claim's attempt is given back: the attempts counted are one fewer. */
  readonly givesBack: boolean;
  /** The attempts the record counts once this one is done. */
  readonly attempts: number;
}

/** What the target gave, if it was called: the claim's deadline and budget may forgo the call. */
type TargetTry = Pick<TriedAttempt, "outcome" | "sentAtMs" | "retryAfter" | "call">;

/** Calls the target, unless the deadline has passed or the budget is spent. */
const tryTarget = async (
  deps: AttemptDeps,
  claimed: ClaimedAttempt,
  when: Pick<TriedAttempt, "claimedAtMs" | "deadlineMs">,
): Promise<TargetTry> => {
  const { record } = claimed;
  if (when.deadlineMs !== undefined && when.claimedAtMs > when.deadlineMs) {
    return { outcome: deadlinePassed };
  }
  if (record.attempts > record.attemptBudget) return { outcome: budgetSpent };
  const made = await callTarget(deps, claimed);
  return {
    sentAtMs: made.sentAtMs,
    call: { result: made.result, timeoutMs: claimed.callTimeoutMs },
    outcome: made.outcome,
    retryAfter: retryAfterOf(made.result),
  };
};

/** Tries the target once, timed from the claim, and counts the attempt. */
const tryOnce = async (deps: AttemptDeps, claimed: ClaimedAttempt): Promise<TriedAttempt> => {
  const { record } = claimed;
  const { envelope, policy } = claimed.inHand;
  const claimedAtMs = deps.clock();
  const deadlineMs = effectiveDeadlineMs(envelope.deadline, policy, Date.parse(record.createdAt));
  const tried = await tryTarget(deps, claimed, { claimedAtMs, deadlineMs });
  const finishedAtMs = deps.clock();

  // A run Ricochet ends before trying the target (deadline or budget passed, a target its rules
  // refuse, a call its own slow claim left no time to send) gives its claim's attempt back, so
  // that the count is the calls made. A refusal the producer's policy retries keeps it: the
  // budget must still end an event whose target can never be tried, and an exhausted event has
  // spent its whole budget. A call cut by the lease is retried on the budget it had.
  const { call, outcome } = tried;
  const outOfTime = outcome === outOfTimeOutcome;
  const noCall = call === undefined || outOfTime || refusedBeforeCall(call.result);
  const givesBack =
    call === undefined || outOfTime || (noCall && outcome.class === OutcomeClass.PERMANENT);
  const attempts = givesBack ? record.attempts - 1 : record.attempts;
  return {
    ...tried,
    claimedAtMs,
    finishedAtMs,
    deadlineMs,
    outOfTime,
    noCall,
    givesBack,
    attempts,
  };
};

/** What follows the attempt: a forgone call dead-letters the event, a made one is judged. */
const decide = (deps: AttemptDeps, claimed: ClaimedAttempt, tried: TriedAttempt): Decision => {
  const { record } = claimed;
  if (tried.outcome === deadlinePassed) return { kind: "dead_letter", reason: "deadline" };
  if (tried.outcome === budgetSpent) return { kind: "dead_letter", reason: "exhausted" };
  return decideAfterAttempt({
    policy: claimed.inHand.policy,
    outcome: tried.outcome,
    retryAfter: tried.retryAfter,
    attemptsMade: tried.attempts,
    attemptBudget: record.attemptBudget,
    deadlineMs: tried.deadlineMs,
    previousDelaySeconds: record.lastDelaySeconds,
    nowMs: tried.finishedAtMs,
    random: deps.random,
  });
};

/** The attempt's entry in the record's history. */
const entryOf = (
  deps: AttemptDeps,
  claimed: ClaimedAttempt,
  tried: TriedAttempt,
  decision: Decision,
): AttemptEntry => {
  const { outcome, sentAtMs } = tried;
  return {
    attempt: tried.attempts,
    worker: deps.workerId,
    claimedAt: claimed.record.currentAttempt?.claimedAt ?? isoOf(tried.claimedAtMs),
    sentAt: sentAtMs === undefined ? undefined : isoOf(sentAtMs),
    finishedAt: isoOf(tried.finishedAtMs),
    outcome: outcome.class,
    statusCode: outcome.statusCode,
    errorCategory: outcome.errorCategory,
    message: outcome.message,
    delaySeconds: decision.kind === "retry" ? decision.delaySeconds : undefined,
    noCall: tried.noCall ? true : undefined,
    traceId: claimed.inHand.message.trace?.traceId,
  };
};

/** A decided attempt: the decision, and the history entry that records it. */
interface DecidedAttempt {
  readonly tried: TriedAttempt;
  readonly decision: Decision;
  readonly entry: AttemptEntry;
}

/** The result write's fields every decision shares. */
const resultBase = (deps: AttemptDeps, claimed: ClaimedAttempt, decided: DecidedAttempt) => {
  const { record } = claimed;
  const { tried } = decided;
  return {
    eventId: claimed.inHand.envelope.eventId,
    worker: deps.workerId,
    generation: record.generation,
    newGeneration: record.generation,
    claimed: record,
    entry: decided.entry,
    nowMs: tried.finishedAtMs,
    retentionSeconds: deps.retentionSeconds,
    attempts: tried.givesBack ? tried.attempts : undefined,
  };
};

/** Sends the retry's message (in hops past `hopSeconds`), then records the retry. */
const scheduleRetry = async (
  deps: AttemptDeps,
  claimed: ClaimedAttempt,
  decided: DecidedAttempt,
  retry: Extract<Decision, { kind: "retry" }>,
): Promise<RecordResultOutcome> => {
  const { record } = claimed;
  const { message } = claimed.inHand;
  const newGeneration = record.generation + 1;
  const needsHops = retry.delaySeconds > deps.hopSeconds;
  await deps.ingress.send(
    message.body,
    {
      generation: newGeneration,
      notBeforeMs: needsHops ? retry.notBeforeMs : undefined,
      trace: message.trace,
    },
    Math.min(retry.delaySeconds, deps.hopSeconds),
  );
  return deps.store.recordResult({
    ...resultBase(deps, claimed, decided),
    newGeneration,
    status: EventStatus.RETRY_SCHEDULED,
    nextAttemptAt: isoOf(retry.notBeforeMs),
  });
};

/**
 * Notes the decision to dead-letter on the record before the copy is sent, so that a takeover
 * finishes it (never calls again), then sends the copy and records the event's end.
 */
const deadLetter = async (
  deps: AttemptDeps,
  claimed: ClaimedAttempt,
  decided: DecidedAttempt,
  reason: PendingDeadLetter["reason"],
): Promise<RecordResultOutcome> => {
  const { record } = claimed;
  const { tried, entry } = decided;
  const pending: PendingDeadLetter = {
    reason,
    entry,
    lastOutcome: tried.outcome,
    generation: record.generation,
    attempts: tried.attempts,
    decidedAt: isoOf(tried.finishedAtMs),
  };
  const noted = await deps.store.recordPendingDeadLetter({
    eventId: claimed.inHand.envelope.eventId,
    worker: deps.workerId,
    generation: record.generation,
    pending,
    nowMs: tried.finishedAtMs,
  });
  if (noted.kind === "lease_lost") return noted;
  return sendDeadLetter(deps, claimed, pending);
};

/** Makes the decision durable: the retry's message or the dead-letter copy first, then the result. */
const recordDecision = (
  deps: AttemptDeps,
  claimed: ClaimedAttempt,
  decided: DecidedAttempt,
): Promise<RecordResultOutcome> => {
  const { decision } = decided;
  switch (decision.kind) {
    case "delivered":
      return deps.store.recordResult({
        ...resultBase(deps, claimed, decided),
        status: EventStatus.DELIVERED,
      });
    case "retry":
      return scheduleRetry(deps, claimed, decided, decision);
    case "rejected":
      return deadLetter(deps, claimed, decided, DeadLetterReason.REJECTED);
    case "dead_letter":
      return deadLetter(deps, claimed, decided, decision.reason);
  }
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
  const { record } = claimed;
  if (record.pendingDeadLetter !== undefined) {
    return finishPendingDeadLetter(deps, claimed, record.pendingDeadLetter);
  }
  const tried = await tryOnce(deps, claimed);
  const decision = decide(deps, claimed, tried);
  const entry = entryOf(deps, claimed, tried, decision);
  const written = await recordDecision(deps, claimed, { tried, decision, entry });
  if (written.kind === "lease_lost") return written;
  return {
    kind: "finished",
    decision,
    outcome: tried.outcome,
    latencyMs: tried.finishedAtMs - tried.claimedAtMs,
    // A call Ricochet ran out of time to send tells the target's breaker nothing.
    call: tried.outOfTime ? undefined : tried.call,
  };
};
