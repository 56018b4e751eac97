import { DeadLetterReason } from "../../core/decide.js";
import { OutcomeClass } from "../../core/outcome.js";
import type {
  RecordConflictRequest,
  RecordDeferralOutcome,
  RecordDeferralRequest,
  RecordInvalidRequest,
  RecordScheduledRequest,
} from "../../core/ports.js";
import type { AttemptEntry } from "../../core/record.js";
import { EventStatus } from "../../core/status.js";
import { isoOf } from "../../core/time-format.js";
import { compactEntry } from "../dynamo-compact-entry.js";
import { itemToRecord } from "../dynamo-record-item.js";
import { putNewRecord, updateRecord } from "./conditional-writes.js";
import { deferralCondition, RECORD_PRESENT, scheduleCondition } from "./conditions.js";
import type { StoreContext } from "./store-context.js";
import { conflictUpdate, deferralUpdate, scheduleUpdate, ttlSeconds } from "./updates.js";

/*
 * The writes made when a message arrives, before any attempt: each is a no-op when its condition
 * refuses it (the record it would write over is one to keep).
 */

/**
 * The record an invalid envelope leaves. A placeholder, not an event: no attempts, budget, digest
 * or createdAt, so that a corrected resubmission claims it as a new event (lib/core/claim.ts)
 * and keeps this entry in its history.
 */
const invalidPlaceholder = (request: RecordInvalidRequest): Record<string, unknown> => {
  const now = isoOf(request.nowMs);
  const entry: AttemptEntry = {
    attempt: 0,
    worker: request.worker,
    claimedAt: now,
    finishedAt: now,
    outcome: OutcomeClass.PERMANENT,
    message: `invalid envelope: ${request.message}`,
  };
  return {
    eventId: request.eventId,
    status: EventStatus.REJECTED,
    generation: 0,
    deadLetterReason: DeadLetterReason.INVALID_ENVELOPE,
    listedStatus: EventStatus.REJECTED,
    lastOutcome: { class: OutcomeClass.PERMANENT, message: request.message },
    history: [compactEntry(entry)],
    redrives: [],
    updatedAt: now,
    expiresAt: ttlSeconds(request.nowMs, request.retentionSeconds),
  };
};

/** Records an invalid envelope; a malformed message never overwrites a valid event's record. */
export const recordInvalid = async (
  context: StoreContext,
  request: RecordInvalidRequest,
): Promise<void> => {
  await putNewRecord(context, "recordInvalid", invalidPlaceholder(request));
};

/** Records an event as scheduled, unless it has a record other than this same schedule. */
export const recordScheduled = async (
  context: StoreContext,
  request: RecordScheduledRequest,
): Promise<void> => {
  await updateRecord(context, "recordScheduled", {
    eventId: request.eventId,
    update: scheduleUpdate(request),
    condition: scheduleCondition(request),
  });
};

/**
 * Notes a deferral on a waiting record, or creates it on the event's first sight; a refusal
 * returns the record that refused it, at no extra read.
 */
export const recordDeferral = async (
  context: StoreContext,
  request: RecordDeferralRequest,
): Promise<RecordDeferralOutcome> => {
  const answer = await updateRecord(context, "recordDeferral", {
    eventId: request.eventId,
    update: deferralUpdate(request),
    condition: deferralCondition(request),
    returnRefusing: true,
  });
  if (answer.kind === "written") return { kind: "recorded" };
  return {
    kind: "refused",
    record: answer.item === undefined ? undefined : itemToRecord(answer.item),
  };
};

/** Counts a conflicting resubmission on the record, if it still exists. */
export const recordConflict = async (
  context: StoreContext,
  request: RecordConflictRequest,
): Promise<void> => {
  await updateRecord(context, "recordConflict", {
    eventId: request.eventId,
    update: conflictUpdate(request),
    condition: RECORD_PRESENT,
  });
};
