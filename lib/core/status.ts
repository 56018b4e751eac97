import { IllegalTransitionError } from "./errors.js";

/** The lifecycle of one event, as stored on its record. */
export const EventStatus = {
  PENDING: "pending",
  /** Accepted with a `notBefore` still ahead: waiting, by hops, for its first attempt. */
  SCHEDULED: "scheduled",
  IN_FLIGHT: "in_flight",
  RETRY_SCHEDULED: "retry_scheduled",
  DELIVERED: "delivered",
  REJECTED: "rejected",
  DEAD_LETTERED: "dead_lettered",
  /** An operator withdrew the event before it was delivered (`ricochet cancel`). */
  CANCELLED: "cancelled",
} as const;
export type EventStatus = (typeof EventStatus)[keyof typeof EventStatus];

export const ALL_STATUSES: readonly EventStatus[] = Object.values(EventStatus);

/**
 * Statuses an event never leaves on its own; only an operator moves it back to `pending`: a
 * redrive (rejected, dead-lettered) or a replay (delivered). A cancelled event never comes back.
 */
const TERMINAL_STATUSES: ReadonlySet<EventStatus> = new Set([
  EventStatus.DELIVERED,
  EventStatus.REJECTED,
  EventStatus.DEAD_LETTERED,
  EventStatus.CANCELLED,
]);

export const isTerminal = (status: EventStatus): boolean => TERMINAL_STATUSES.has(status);

/**
 * The statuses a record may be created in. A valid event's record is written by its first claim,
 * already `in_flight` (lib/core/claim.ts, `claimedRecord`), as `scheduled` when its `notBefore`
 * is ahead, or as `pending` when its target turns it away before its first claim
 * (lib/core/deferral.ts); an invalid envelope leaves a `rejected` placeholder. A redrive whose
 * record has expired (lib/core/redrive-rule.ts) creates one `pending` too.
 */
const INITIAL_STATUSES: ReadonlySet<EventStatus> = new Set([
  EventStatus.PENDING,
  EventStatus.SCHEDULED,
  EventStatus.IN_FLIGHT,
  EventStatus.REJECTED,
]);

// A live event goes back to pending only by a redrive of a copy the native redrive parked (a crash
// loop stranded it; see lib/core/redrive-rule.ts), and from in_flight only once the lease expired.
// A waiting event may be cancelled (lib/core/cancel-rule.ts); one in flight never is, so that a
// running attempt's result is never overwritten and never overwrites a cancel.
const TRANSITIONS: Readonly<Record<EventStatus, readonly EventStatus[]>> = {
  pending: [EventStatus.IN_FLIGHT, EventStatus.PENDING, EventStatus.CANCELLED],
  // scheduled -> scheduled: a duplicate of the producer's message recorded the same schedule, or
  // a deferral of the due event.
  scheduled: [
    EventStatus.IN_FLIGHT,
    EventStatus.PENDING,
    EventStatus.SCHEDULED,
    EventStatus.CANCELLED,
  ],
  // retry_scheduled -> retry_scheduled: a deferral noted when the retry is tried instead.
  retry_scheduled: [
    EventStatus.IN_FLIGHT,
    EventStatus.PENDING,
    EventStatus.RETRY_SCHEDULED,
    EventStatus.CANCELLED,
  ],
  // in_flight -> in_flight is a takeover after the previous holder's lease expired.
  in_flight: [
    EventStatus.IN_FLIGHT,
    EventStatus.DELIVERED,
    EventStatus.RETRY_SCHEDULED,
    EventStatus.REJECTED,
    EventStatus.DEAD_LETTERED,
    EventStatus.PENDING,
  ],
  // Redrive is the only way out of a terminal status, except for the placeholder an invalid
  // envelope leaves (rejected, reason invalid_envelope): a corrected resubmission claims it, and
  // a delivered event, which a replay sends again (lib/core/replay-rule.ts).
  delivered: [EventStatus.PENDING],
  rejected: [EventStatus.PENDING, EventStatus.IN_FLIGHT],
  dead_lettered: [EventStatus.PENDING],
  cancelled: [],
};

export const canTransition = (from: EventStatus | undefined, to: EventStatus): boolean =>
  from === undefined ? INITIAL_STATUSES.has(to) : TRANSITIONS[from].includes(to);

/** Throws {@link IllegalTransitionError} unless `from -> to` is allowed. */
export const assertTransition = (from: EventStatus | undefined, to: EventStatus): void => {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from ?? "(new)", to);
};
