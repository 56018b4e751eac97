import { delayRange } from "../core/backoff.js";
import { describeCaller } from "../core/caller.js";
import { countOf } from "../core/count-text.js";
import type { RetryPolicy } from "../core/policy.js";
import type { AttemptEntry, EventRecord } from "../core/record.js";
import { redactCredentials } from "../core/redact.js";

/*
 * One event's record as the console draws it: attempts and operator actions on one timeline, and
 * the policy's planned delays beside the ones the record says were drawn. Records are redacted
 * when written; free text is passed through redactCredentials again on the way to the page, so a
 * record written before a redaction rule existed still shows no credential.
 */

/** A finished (or abandoned) attempt on the timeline, as its history entry holds it. */
export interface AttemptItem extends Omit<AttemptEntry, "worker"> {
  readonly kind: "attempt";
  /** When it began: the timeline's order. */
  readonly at: string;
}

/** The attempt running now (claimed, no result yet). */
export interface RunningItem {
  readonly kind: "running";
  readonly at: string;
  readonly attempt: number;
  readonly worker: string;
}

/** An operator's action on the event: a redrive, a cancel, a replay, a removed copy. */
export interface AuditItem {
  readonly kind: "audit";
  readonly at: string;
  readonly action: string;
  readonly by: string;
  /** Who AWS says acted, as `ricochet status` words it. */
  readonly caller: string;
  readonly reason: string;
  readonly previousStatus?: string | undefined;
  readonly detail?: string | undefined;
}

export type TimelineItem = AttemptItem | RunningItem | AuditItem;

/** The record's attempts and audit entries, oldest first (an attempt before an action at a tie). */
export const eventTimeline = (record: EventRecord): TimelineItem[] => {
  const attempts: TimelineItem[] = record.history.map(({ worker: _, ...entry }) => ({
    ...entry,
    kind: "attempt",
    at: entry.claimedAt,
    message: redactCredentials(entry.message),
  }));
  const running: TimelineItem[] =
    record.currentAttempt === undefined
      ? []
      : [
          {
            kind: "running",
            at: record.currentAttempt.claimedAt,
            attempt: record.currentAttempt.attempt,
            worker: record.currentAttempt.worker,
          },
        ];
  const redrives: TimelineItem[] = record.redrives.map((entry) => ({
    kind: "audit",
    at: entry.at,
    action: "redriven",
    by: entry.by,
    caller: describeCaller(entry.caller),
    reason: redactCredentials(entry.reason),
    previousStatus: entry.previousStatus,
    detail: `after ${countOf(entry.previousAttempts, "attempt")}, budget now ${entry.attemptBudget}`,
  }));
  const actions: TimelineItem[] = (record.audit ?? []).map((entry) => ({
    kind: "audit",
    at: entry.at,
    action: entry.action,
    by: entry.by,
    caller: describeCaller(entry.caller),
    reason: redactCredentials(entry.reason),
    previousStatus: entry.previousStatus,
    detail: entry.messageId === undefined ? undefined : `message ${entry.messageId}`,
  }));
  const rank = (item: TimelineItem): number => (item.kind === "audit" ? 1 : 0);
  // Array.prototype.sort is stable: equal items keep the record's own order.
  return [...attempts, ...running, ...redrives, ...actions].sort(
    (a, b) => a.at.localeCompare(b.at) || rank(a) - rank(b),
  );
};

/** One retry: the range the policy draws its delay from, and the delay the record holds. */
export interface ScheduleRow {
  /** 1 for the first retry (the delay after attempt 1). */
  readonly retry: number;
  readonly plannedMinSeconds: number;
  readonly plannedMaxSeconds: number;
  /** The delay drawn, when the record still holds the attempt that drew it. */
  readonly actualSeconds?: number | undefined;
  /**
   * Where the drawn delay fell: in the range, above it (a Retry-After or a deadline hint wins
   * over the draw), or below it.
   */
  readonly verdict?: "within" | "above" | "below" | undefined;
}

/**
 * The policy's planned delay ranges, retry by retry, beside the delays the record's attempts drew.
 * The record keeps no copy of the envelope's own policy: `policy` is the deployment's default,
 * so an event that overrode it shows the default's plan beside its own draws.
 */
export const plannedBesideActual = (record: EventRecord, policy: RetryPolicy): ScheduleRow[] => {
  const drawn = new Map<number, number>();
  for (const entry of record.history) {
    if (entry.delaySeconds !== undefined) drawn.set(entry.attempt, entry.delaySeconds);
  }
  const retries = Math.max(policy.maxAttempts - 1, ...drawn.keys());
  return Array.from({ length: retries }, (_, index): ScheduleRow => {
    const retry = index + 1;
    // Decorrelated jitter draws from a range that grows with the previous delay actually drawn.
    const range = delayRange(policy, retry, drawn.get(retry - 1));
    const actualSeconds = drawn.get(retry);
    const verdict =
      actualSeconds === undefined
        ? undefined
        : actualSeconds > range.maxSeconds
          ? "above"
          : actualSeconds < range.minSeconds
            ? "below"
            : "within";
    return {
      retry,
      plannedMinSeconds: range.minSeconds,
      plannedMaxSeconds: range.maxSeconds,
      actualSeconds,
      verdict,
    };
  });
};
