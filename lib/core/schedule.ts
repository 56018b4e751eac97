import type { InputProblem } from "./errors.js";
import { MAX_DELAY_LIMIT_SECONDS } from "./policy.js";

/*
 * When a message may be attempted. Two things can hold it back: the envelope's `notBefore` (the
 * producer's "deliver at or after", for the first attempt) and the due time Ricochet's own copies
 * carry (a retry's delay, a deferral). Either is reached by hops of at most `hopSeconds` on the
 * internal queue, which spend no attempt.
 */

/**
 * Farthest ahead a producer may schedule an event: the horizon Ricochet already keeps for its
 * longest retry delay (the dead-letter queue's 14-day retention), so a scheduled event is never
 * due after what Ricochet keeps of it elsewhere.
 */
export const MAX_SCHEDULE_AHEAD_SECONDS = MAX_DELAY_LIMIT_SECONDS;

/**
 * How early one of Ricochet's own copies may run before its due time: SQS delays are whole
 * seconds, and this keeps a copy that is due now from hopping on rounding alone. A producer's
 * `notBefore` gets no such tolerance: it is a promise made to the producer.
 */
export const DUE_TOLERANCE_MS = 250;

/**
 * The delay of the next hop towards `dueMs`: whole seconds, at least one (a copy never comes
 * back before it is due) and at most `hopSeconds` (SQS's 900, or less in local runs and tests).
 */
export const hopDelaySeconds = (dueMs: number, nowMs: number, hopSeconds: number): number =>
  Math.min(Math.max(1, Math.ceil((dueMs - nowMs) / 1000)), hopSeconds);

export interface ScheduleInput {
  /** The envelope's `notBefore` (ISO 8601), if it has one. */
  readonly notBefore?: string | undefined;
  /** The due time the message carries, trusted only on Ricochet's own queue (epoch ms). */
  readonly messageDueMs?: number | undefined;
  /** Whether the message is the producer's own: the first sight of the event. */
  readonly fromProducer: boolean;
  readonly nowMs: number;
  /** The longest hop the deployment makes (seconds). */
  readonly hopSeconds: number;
}

export type ScheduleVerdict =
  | { readonly kind: "due" }
  | {
      readonly kind: "wait";
      readonly dueMs: number;
      /** The delay of the next hop. */
      readonly delaySeconds: number;
      /**
       * The producer's message of an event scheduled ahead: the event is recorded as
       * `scheduled` (its copies after this one only hop, without touching the record).
       */
      readonly firstSight: boolean;
    };

/** Whether the message may be attempted now, or when it is due and how long its next hop is. */
export const scheduleVerdict = (input: ScheduleInput): ScheduleVerdict => {
  const { nowMs, hopSeconds, messageDueMs } = input;
  const wait = (dueMs: number, firstSight: boolean): ScheduleVerdict => ({
    kind: "wait",
    dueMs,
    delaySeconds: hopDelaySeconds(dueMs, nowMs, hopSeconds),
    firstSight,
  });
  const notBeforeMs = input.notBefore === undefined ? undefined : Date.parse(input.notBefore);
  if (notBeforeMs !== undefined && notBeforeMs > nowMs) {
    return wait(Math.max(notBeforeMs, messageDueMs ?? notBeforeMs), input.fromProducer);
  }
  if (messageDueMs !== undefined && messageDueMs - nowMs > DUE_TOLERANCE_MS) {
    return wait(messageDueMs, false);
  }
  return { kind: "due" };
};

/**
 * What is wrong with an envelope's `notBefore` that only a clock can tell: more than
 * {@link MAX_SCHEDULE_AHEAD_SECONDS} ahead, or after the policy's deadline counted from now (the
 * event's first sight, where `deadlineSeconds` starts). A `notBefore` after the envelope's own
 * `deadline` is refused by the schema already.
 */
export const scheduleProblems = (
  notBefore: string | undefined,
  deadlineSeconds: number | undefined,
  nowMs: number,
): InputProblem[] => {
  if (notBefore === undefined) return [];
  const aheadSeconds = (Date.parse(notBefore) - nowMs) / 1000;
  const problems: InputProblem[] = [];
  if (aheadSeconds > MAX_SCHEDULE_AHEAD_SECONDS) {
    problems.push({
      path: "notBefore",
      message: `must be at most ${MAX_SCHEDULE_AHEAD_SECONDS} s (14 days) ahead; it is ${Math.ceil(aheadSeconds)} s ahead`,
    });
  }
  if (deadlineSeconds !== undefined && aheadSeconds > deadlineSeconds) {
    problems.push({
      path: "notBefore",
      message: `must not be after the policy's deadline (deadlineSeconds ${deadlineSeconds} from submission): no attempt could ever start`,
    });
  }
  return problems;
};
