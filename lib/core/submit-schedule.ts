import { IsoInstantSchema } from "./envelope.js";
import { type InputProblem, InvalidRequestError } from "./errors.js";
import { MAX_SCHEDULE_AHEAD_SECONDS } from "./schedule.js";

/*
 * A producer's "deliver these at or after …" for a whole submission (the client's option,
 * `ricochet submit --at/--in`), turned into each envelope's `notBefore`. The envelope field stays
 * the one place a schedule lives, so the orchestrator and every check see one rule.
 */

/** When a submission's events may first be attempted: at most one of the two. */
export interface SubmitSchedule {
  /** No attempt before this instant: a `Date`, or an ISO 8601 date-time naming its zone. */
  readonly notBefore?: Date | string | undefined;
  /** No attempt before this many seconds after the submission (counted when it is made). */
  readonly delaySeconds?: number | undefined;
}

/**
 * The `notBefore` a submission's schedule asks for, as an ISO instant (UTC), or `undefined` when
 * it asks for none. Whether the instant is too far ahead or after an event's deadline is each
 * envelope's question (`scheduleProblems`, the envelope schema), not the schedule's.
 * @throws InvalidRequestError when both fields are given, or either is not an instant or a delay.
 */
export const notBeforeOfSchedule = (
  schedule: SubmitSchedule | undefined,
  nowMs: number,
): string | undefined => {
  const { notBefore, delaySeconds } = schedule ?? {};
  const refuse = (path: string, message: string): never => {
    throw new InvalidRequestError("schedule", [{ path, message }]);
  };
  if (notBefore !== undefined && delaySeconds !== undefined) {
    return refuse("delaySeconds", "cannot be given with notBefore: give the instant or the delay");
  }
  if (delaySeconds !== undefined) {
    if (!Number.isFinite(delaySeconds) || delaySeconds < 0) {
      return refuse(
        "delaySeconds",
        `must be a number of seconds of at least 0, got ${delaySeconds}`,
      );
    }
    // Refused here, not per envelope: past the horizon every envelope would be, and far enough
    // past it the instant is beyond what a Date can hold.
    if (delaySeconds > MAX_SCHEDULE_AHEAD_SECONDS) {
      return refuse(
        "delaySeconds",
        `must be at most ${MAX_SCHEDULE_AHEAD_SECONDS} (14 days), got ${delaySeconds}`,
      );
    }
    return new Date(nowMs + delaySeconds * 1000).toISOString();
  }
  if (notBefore instanceof Date) {
    return Number.isNaN(notBefore.getTime())
      ? refuse("notBefore", "must be a valid Date")
      : notBefore.toISOString();
  }
  if (notBefore === undefined) return undefined;
  const checked = IsoInstantSchema.safeParse(notBefore);
  return checked.success
    ? new Date(Date.parse(notBefore)).toISOString()
    : refuse("notBefore", `${checked.error.issues[0]?.message}, got ${JSON.stringify(notBefore)}`);
};

/** An envelope with the submission's `notBefore` set, or why it cannot take it. */
export type ScheduledEnvelope =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problems: InputProblem[] };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Sets `notBefore` on one envelope. An envelope that already names another instant is refused
 * with both: they disagree about when the event is due, and only the producer knows which is
 * meant (`askedBy` says who asked for the submission's, for the message). Anything that is not
 * an object is left as it is, for the envelope's validation to refuse.
 */
export const scheduleEnvelope = (
  value: unknown,
  notBefore: string,
  askedBy: string,
): ScheduledEnvelope => {
  if (!isObject(value)) return { ok: true, value };
  const own = value.notBefore;
  // The same instant written another way (another zone, no milliseconds) is no disagreement.
  if (own === undefined || (typeof own === "string" && Date.parse(own) === Date.parse(notBefore))) {
    return { ok: true, value: { ...value, notBefore } };
  }
  return {
    ok: false,
    problems: [
      {
        path: "notBefore",
        message: `is ${JSON.stringify(own)} in the envelope, but ${askedBy} asks for ${notBefore}`,
      },
    ],
  };
};
