import { errorMessage } from "../../core/errors.js";
import type { CallerIdentity, DeadLetterQueue, EventStore } from "../../core/ports.js";
import type { Clock } from "../../core/random.js";
import { AuditAction, type EventRecord } from "../../core/record.js";
import { EventStatus } from "../../core/status.js";
import {
  DEFAULT_SCAN_VISIBILITY_SECONDS,
  releaseAll,
  type ScannedMessage,
  scanDeadLetters,
} from "./dead-letter-scan.js";
import { type AuditStamper, auditStamper } from "./operator-action.js";

/*
 * `ricochet dlq clean`: removes dead-letter copies that no longer stand for anything, so the
 * dead-letter alarm means "an event needs a decision" again. A copy is obsolete once its event
 * was delivered — the copy came from an earlier failure (a native move during a crash loop, an
 * invalid first envelope later corrected, a redrive whose original was left behind). Every
 * removal is written to the event's audit trail once the delete succeeded through the copy's
 * latest receipt handle, never before: a delete that fails leaves the copy, and an entry written
 * first would record a removal that did not happen (and a second one when the clean is run
 * again). Should the entry's write fail after
 * the delete, the report says so: the removal is then traced only there. Anything else stays in
 * the queue.
 */

export interface CleanDeps {
  readonly deadLetterQueue: DeadLetterQueue;
  readonly store: EventStore;
  readonly clock: Clock;
  readonly scanVisibilitySeconds?: number;
  readonly onProgress?: (scanned: number) => void;
  /** Who AWS says runs the clean, for the audit entries' `caller` (see redrive's). */
  readonly callerIdentity?: CallerIdentity | undefined;
}

export interface CleanRequest {
  /** Report what would be removed; change nothing. */
  readonly dryRun: boolean;
  /** Who asks, for the audit entry. */
  readonly by: string;
  /** Why, for the audit entry. */
  readonly reason?: string | undefined;
}

interface RemovedCopy {
  readonly eventId: string;
  readonly messageId: string;
  /** Why the copy is obsolete. */
  readonly why: string;
}

export interface CleanReport {
  readonly dryRun: boolean;
  readonly removed: RemovedCopy[];
  /** Copies left in the queue: they still stand for an event that needs a decision. */
  readonly kept: number;
  /**
   * Copies that could not be removed (they stay, with no audit entry), and removals whose audit
   * entry could not be written (the copy is gone; this is its only trace).
   */
  readonly failed: { readonly messageId: string; readonly error: string }[];
}

/** Why a copy is obsolete given its event's record, or undefined when it must stay. */
const obsoleteBecause = (record: EventRecord | undefined): string | undefined =>
  record?.status === EventStatus.DELIVERED ? "event was delivered" : undefined;

const eventIdOf = (message: ScannedMessage): string | undefined =>
  message.parsed.ok ? message.parsed.message.eventId : undefined;

/** How long a copy is held, just before its delete, so that no other reader receives it. */
const REMOVAL_HOLD_SECONDS = 30;

/**
 * Deletes a copy through a handle known to be its latest. SQS accepts a DeleteMessage with an
 * outdated handle (another reader, e.g. a `dlq list`, received the copy once the scan's hold ran
 * out) but may delete nothing, so a resolved delete alone proves no removal (fauxqs keeps the
 * copy; moto removes it). Taking the hold again first, and deleting while it lasts, makes the
 * delete's handle the latest; where ChangeMessageVisibility refuses an outdated handle (fauxqs),
 * the copy is reported failed and stays. Throws when the copy may stay.
 */
const removeCopy = async (queue: DeadLetterQueue, receiptHandle: string): Promise<void> => {
  await queue.changeVisibility(receiptHandle, REMOVAL_HOLD_SECONDS);
  await queue.delete(receiptHandle);
};

/**
 * Writes the audit entry of a removal that happened, or answers why it could not: the copy is
 * gone either way, so a failed write is reported, never thrown.
 */
const auditRemoval = async (
  deps: CleanDeps,
  stamps: AuditStamper,
  request: CleanRequest,
  removed: RemovedCopy,
): Promise<string | undefined> => {
  try {
    const { stamp } = await stamps.now(request.by);
    await deps.store.appendAudit(removed.eventId, {
      ...stamp,
      action: AuditAction.DEAD_LETTER_COPY_REMOVED,
      reason: request.reason ?? `dead-letter copy removed: ${removed.why}`,
      messageId: removed.messageId,
    });
    return undefined;
  } catch (error) {
    return `removed, but its audit entry was not written: ${errorMessage(error)}`;
  }
};

/**
 * Scans the whole dead-letter queue and removes the copies of delivered events, each with an
 * audit entry on the event's record. Unreadable copies and copies without an event id are kept.
 */
export const cleanDeadLetters = async (
  deps: CleanDeps,
  request: CleanRequest,
): Promise<CleanReport> => {
  const { matched, unmatched } = await scanDeadLetters(deps.deadLetterQueue, {
    filter: {},
    visibilitySeconds: deps.scanVisibilitySeconds ?? DEFAULT_SCAN_VISIBILITY_SECONDS,
    onPage: (scanned) => deps.onProgress?.(scanned),
  });
  const report: CleanReport = { dryRun: request.dryRun, removed: [], kept: 0, failed: [] };
  const keep: ScannedMessage[] = [...unmatched];
  const records = new Map<string, EventRecord | undefined>();
  const stamps = auditStamper(deps.callerIdentity, deps.clock);
  let failedToRemove = 0;
  for (const message of matched) {
    const eventId = eventIdOf(message);
    const messageId = message.received.messageId;
    try {
      if (eventId === undefined) {
        keep.push(message);
        continue;
      }
      if (!records.has(eventId)) records.set(eventId, await deps.store.get(eventId));
      const why = obsoleteBecause(records.get(eventId));
      if (why === undefined) {
        keep.push(message);
        continue;
      }
      const removed = { eventId, messageId, why };
      if (!request.dryRun) {
        // Throws when the copy stays: then no entry is written, and the copy is kept.
        await removeCopy(deps.deadLetterQueue, message.received.receiptHandle);
        const unaudited = await auditRemoval(deps, stamps, request, removed);
        if (unaudited !== undefined) report.failed.push({ messageId, error: unaudited });
      }
      report.removed.push(removed);
    } catch (error) {
      report.failed.push({ messageId, error: errorMessage(error) });
      failedToRemove += 1;
      keep.push(message);
    }
  }
  await releaseAll(deps.deadLetterQueue, request.dryRun ? [...keep, ...matched] : keep);
  return { ...report, kept: keep.length - failedToRemove };
};
