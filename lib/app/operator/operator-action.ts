import { callerFieldOnce } from "../../core/caller.js";
import type { CallerIdentity } from "../../core/ports.js";
import type { Clock } from "../../core/random.js";
import type { AuditAction, AuditEntry, RedriveEntry } from "../../core/record.js";
import type { EventStatus } from "../../core/status.js";
import { isoOf } from "../../core/time-format.js";

/*
 * What the operator actions (redrive, cancel, replay, dead-letter clean) share: how they report
 * an event they would not or could not act on, and how each audit entry they write says who
 * acted and when.
 */

/** An event the action's rule would not touch, with the reason for the operator. */
export interface RefusedEvent {
  readonly eventId: string;
  readonly reason: string;
}

/** An event whose action failed (an AWS call); trying again is safe. */
export interface FailedEvent {
  readonly eventId: string;
  readonly error: string;
}

/** Who acted and when: the fields every audit and redrive entry opens with. */
export type AuditStamp = Pick<AuditEntry & RedriveEntry, "at" | "by" | "caller">;

/** The stamp of an entry written at `nowMs` by `by`, with the caller's AWS identity when known. */
export const auditStamp = (
  by: string,
  nowMs: number,
  who: Pick<AuditEntry, "caller">,
): AuditStamp => ({ at: isoOf(nowMs), by, ...who });

/** Stamps one run's audit entries; see {@link auditStamper}. */
export interface AuditStamper {
  /** The caller field alone, for an action that must read the clock later than it asks. */
  readonly caller: () => Promise<Pick<AuditEntry, "caller">>;
  /** Asks the caller, then reads the clock: the instant written and the entry's stamp. */
  readonly now: (by: string) => Promise<{ readonly nowMs: number; readonly stamp: AuditStamp }>;
}

/**
 * Stamps a run's entries: the caller is asked once per run (see `callerFieldOnce`), and asked
 * before the clock is read, so an entry's `at` is when it was written, not when STS was asked.
 */
export const auditStamper = (identity: CallerIdentity | undefined, clock: Clock): AuditStamper => {
  const callerField = callerFieldOnce(identity);
  return {
    caller: callerField,
    now: async (by) => {
      const who = await callerField();
      const nowMs = clock();
      return { nowMs, stamp: auditStamp(by, nowMs, who) };
    },
  };
};

/** The audit entry of an operator action on an event that was in `previousStatus`. */
export const operatorAudit = (
  stamp: AuditStamp,
  action: AuditAction,
  reason: string,
  previousStatus: EventStatus,
): AuditEntry => ({ ...stamp, action, reason, previousStatus });
