import type { CancelRecordRequest } from "./ports.js";
import type { EventRecord } from "./record.js";
import { EventStatus } from "./status.js";

/*
 * The rules of a cancel, in one place. The DynamoDB store states `mayRecordCancel` as a condition
 * expression (change both together); the simulation's memory store calls these functions.
 *
 * Only a waiting event is cancelled: one whose next step is a message still to be received
 * (`pending`, `scheduled`, `retry_scheduled`). An event in flight is refused, whatever its lease says: the
 * running attempt's result write requires the record in flight under its lease, so a cancel that
 * landed beside it would make that write fail, and the attempt would be retried by its source
 * message only to be dropped — but its call has been made. Refusing keeps "cancelled" honest: no
 * call starts after the cancel is recorded, and none was running when it was. The operator
 * cancels again once the attempt has ended (it is then waiting for a retry, or terminal).
 */

/** Statuses a cancel accepts: each waits for a message still to be received. */
export const CANCELLABLE_STATUSES: ReadonlySet<EventStatus> = new Set<EventStatus>([
  EventStatus.PENDING,
  EventStatus.SCHEDULED,
  EventStatus.RETRY_SCHEDULED,
]);

/** What a cancel may do with an event, judged from its record. */
export type CancelVerdict =
  | { readonly kind: "cancel"; readonly record: EventRecord }
  | { readonly kind: "refuse"; readonly reason: string };

const refuse = (reason: string): CancelVerdict => ({ kind: "refuse", reason });

/** Why an event in `status` cannot be cancelled, for the operator. */
const refusalFor = (record: EventRecord, nowMs: number): string => {
  switch (record.status) {
    case EventStatus.DELIVERED:
      return "already delivered: nothing left to cancel (`ricochet replay` sends it again)";
    case EventStatus.CANCELLED:
      return "already cancelled";
    case EventStatus.REJECTED:
    case EventStatus.DEAD_LETTERED:
      return `already ${record.status}: it is finished; its dead-letter copy stays until it is redriven or cleaned`;
    case EventStatus.IN_FLIGHT: {
      const leaseEnd = record.leaseExpiresAt ?? nowMs;
      return leaseEnd > nowMs
        ? `an attempt is in flight (lease until ${new Date(leaseEnd).toISOString()}); cancel again once it has ended`
        : "an attempt was in flight and its worker stopped; cancel again once the event has been taken over";
    }
    default:
      return `${record.status} events cannot be cancelled`;
  }
};

/** Whether an event may be cancelled, and why not when it may not. Reads only the record. */
export const judgeCancel = (record: EventRecord | undefined, nowMs: number): CancelVerdict => {
  if (record === undefined) return refuse("no record: unknown event, or its record has expired");
  if (!CANCELLABLE_STATUSES.has(record.status)) return refuse(refusalFor(record, nowMs));
  // A dead-letter decision is being finished: its copy may be out already.
  if (record.pendingDeadLetter !== undefined)
    return refuse("a dead-letter decision is being finished; it will end dead-lettered");
  return { kind: "cancel", record };
};

/**
 * Whether the cancel write lands: the record is still in the status and generation the cancel
 * judged, and that status is cancellable. A claim, a result or another operator in between
 * changes one of them, and the cancel is refused rather than written over them.
 */
export const mayRecordCancel = (
  old: EventRecord | undefined,
  request: Pick<CancelRecordRequest, "expectedStatus" | "generation">,
): old is EventRecord =>
  old !== undefined &&
  CANCELLABLE_STATUSES.has(old.status) &&
  old.status === request.expectedStatus &&
  old.generation === request.generation &&
  old.pendingDeadLetter === undefined;

/** The record as a cancel leaves it: terminal, with the audit entry, kept for the retention. */
export const cancelledRecord = (old: EventRecord, request: CancelRecordRequest): EventRecord => ({
  ...old,
  status: EventStatus.CANCELLED,
  nextAttemptAt: undefined,
  deferral: undefined,
  updatedAt: new Date(request.nowMs).toISOString(),
  audit: [...(old.audit ?? []), request.audit],
  expiresAt: Math.floor(request.nowMs / 1000) + request.retentionSeconds,
});
