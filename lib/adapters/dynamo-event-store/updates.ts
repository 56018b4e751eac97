import type {
  CancelRecordRequest,
  ClaimRequest,
  RecordConflictRequest,
  RecordDeferralRequest,
  RecordPendingDeadLetterRequest,
  RecordResultRequest,
  RecordScheduledRequest,
  RedriveRecordRequest,
  ReplayRecordRequest,
} from "../../core/ports.js";
import { type AuditEntry, appendBounded, MAX_HISTORY_ENTRIES } from "../../core/record.js";
import { EventStatus, isTerminal } from "../../core/status.js";
import { isoOf } from "../../core/time-format.js";
import { compactCurrentAttempt, compactEntry } from "../dynamo-compact-entry.js";
import { dueBucketOf } from "../dynamo-due-bucket.js";
import { LISTED_STATUSES } from "../dynamo-record-item.js";
import { STATUS_NAME } from "./conditions.js";
import type { ExpressionPart } from "./expression-part.js";
import { firstSightFields } from "./first-sight-fields.js";

/*
 * The update of every write the event store makes, one per operation; each goes with the
 * condition of the same name in ./conditions.ts.
 */

/** The in-flight attempt as the item stores it; the attempt number is the item's `attempts`. */
export const storedCurrentAttempt = ({ worker, nowMs }: ClaimRequest) =>
  compactCurrentAttempt(worker, nowMs);

/** When DynamoDB's TTL may remove a finished record (epoch seconds). */
export const ttlSeconds = (nowMs: number, retentionSeconds: number): number =>
  Math.floor(nowMs / 1000) + retentionSeconds;

/** What a claim sets and its result write removes: who holds the event, until when, since when. */
const LEASE_ATTRIBUTES = "leaseOwner, leaseExpiresAt, currentAttempt";

/** Appends an operator's entry to the audit trail, creating the trail on its first entry. */
const appendingAudit = (entry: AuditEntry): ExpressionPart => ({
  expression: "audit = list_append(if_not_exists(audit, :empty), :audit)",
  values: { ":empty": [], ":audit": [entry] },
});

/** Back to pending at a new generation with a fresh attempt budget: a redrive's and a replay's start. */
const restartingAt = (request: {
  readonly generation: number;
  readonly attemptBudget: number;
}): ExpressionPart => ({
  expression: "#status = :pending, generation = :generation, attemptBudget = :budget",
  names: STATUS_NAME,
  values: {
    ":pending": EventStatus.PENDING,
    ":generation": request.generation,
    ":budget": request.attemptBudget,
  },
});

/** A waiting record's due time and its due-index bucket, as `:due` and `:dueBucket`. */
const dueValues = (eventId: string, dueMs: number): Record<string, string> => ({
  ":due": isoOf(dueMs),
  ":dueBucket": dueBucketOf(eventId, isoOf(dueMs)),
});

/** A claim takes the lease: in flight at `generation`, one attempt more, held by `worker`. */
export const claimUpdate = (request: ClaimRequest): ExpressionPart => {
  const { generation, worker, nowMs } = request;
  const firstSight = firstSightFields(request, nowMs);
  return {
    expression:
      "SET #status = :inFlight, generation = :generation, " +
      "attempts = if_not_exists(attempts, :zero) + :one, " +
      "leaseOwner = :worker, leaseExpiresAt = :leaseEnd, currentAttempt = :current, " +
      `updatedAt = :now, ${firstSight.expression}` +
      // Only an invalid envelope's placeholder has the last three; claiming it clears them.
      " REMOVE nextAttemptAt, dueBucket, deferral, deadLetterReason, listedStatus, expiresAt",
    names: STATUS_NAME,
    values: {
      ":inFlight": EventStatus.IN_FLIGHT,
      ":generation": generation,
      ":zero": 0,
      ":one": 1,
      ":worker": worker,
      ":leaseEnd": nowMs + request.leaseMs,
      ":current": storedCurrentAttempt(request),
      ...firstSight.values,
    },
  };
};

/**
 * The result write ends the attempt: the new status and generation, the attempt's history entry,
 * and the lease given up. Optional fields without a value are removed rather than left stale.
 */
export const resultUpdate = (request: RecordResultRequest): ExpressionPart => {
  const { nowMs, status } = request;
  const values: Record<string, unknown> = {
    ":status": status,
    ":newGeneration": request.newGeneration,
    ":now": isoOf(nowMs),
  };
  // Under the lease the stored history is the claimed one, so appending the new entry gives
  // the same list as rewriting it, and the request carries one entry instead of the whole
  // history. A first entry is set instead (same request, and a plain SET costs DynamoDB Local
  // less than list_append), and a full history is rewritten to drop its oldest entry.
  // The last outcome is the new entry's: it is read from there (lib/adapters/dynamo-record-item.ts)
  // rather than stored twice, and an older item's copy is removed.
  const history = request.claimed.history;
  const appending = history.length > 0 && history.length < MAX_HISTORY_ENTRIES;
  if (appending) {
    values[":entries"] = [compactEntry(request.entry)];
  } else {
    values[":history"] = appendBounded(history, request.entry, MAX_HISTORY_ENTRIES).map(
      compactEntry,
    );
  }
  // A run that made no call gives its attempt back (lib/app/orchestrator/attempt.ts); under the lease the
  // stored count is the claimed one, so setting it is exact.
  if (request.attempts !== undefined) values[":attempts"] = request.attempts;
  const sets = [
    ...(request.attempts === undefined ? [] : ["attempts = :attempts"]),
    "#status = :status",
    "generation = :newGeneration",
    appending ? "history = list_append(history, :entries)" : "history = :history",
    "updatedAt = :now",
  ];
  const removes = [LEASE_ATTRIBUTES, "pendingDeadLetter", "lastOutcome"];
  const optional: [string, unknown][] = [
    ["nextAttemptAt", request.nextAttemptAt],
    // Only a retry's write enters the due index: a delivered event's removes an absent key, free.
    [
      "dueBucket",
      request.nextAttemptAt === undefined
        ? undefined
        : dueBucketOf(request.eventId, request.nextAttemptAt),
    ],
    ["lastDelaySeconds", request.entry.delaySeconds],
    ["deadLetterReason", request.deadLetterReason],
    ["expiresAt", isTerminal(status) ? ttlSeconds(nowMs, request.retentionSeconds) : undefined],
    ["listedStatus", LISTED_STATUSES.has(status) ? status : undefined],
  ];
  for (const [name, value] of optional) {
    if (value === undefined) {
      removes.push(name);
    } else {
      sets.push(`${name} = :${name}`);
      values[`:${name}`] = value;
    }
  }
  return {
    expression: `SET ${sets.join(", ")} REMOVE ${removes.join(", ")}`,
    names: STATUS_NAME,
    values,
  };
};

/** Notes a dead-letter decision on the leased record, before its copy is sent. */
export const pendingDeadLetterUpdate = (
  request: RecordPendingDeadLetterRequest,
): ExpressionPart => ({
  expression: "SET pendingDeadLetter = :pending, updatedAt = :now",
  values: { ":pending": request.pending, ":now": isoOf(request.nowMs) },
});

/**
 * Schedules an event for later. if_not_exists keeps the first write's creation time: the
 * policy's deadlineSeconds counts from the event's first sight, as the orchestrator judged it
 * when scheduling.
 */
export const scheduleUpdate = (request: RecordScheduledRequest): ExpressionPart => {
  const firstSight = firstSightFields(request, request.nowMs);
  return {
    expression:
      "SET #status = :scheduled, generation = :zero, attempts = if_not_exists(attempts, :zero), " +
      `nextAttemptAt = :due, dueBucket = :dueBucket, updatedAt = :now, ${firstSight.expression}`,
    names: STATUS_NAME,
    values: {
      ":scheduled": EventStatus.SCHEDULED,
      ":zero": 0,
      ...dueValues(request.eventId, request.dueMs),
      ...firstSight.values,
    },
  };
};

/**
 * Notes a deferral, creating the record (pending, no attempt) on the event's first sight; the
 * fields of a record that exists are kept (if_not_exists), only its next attempt and the note change.
 */
export const deferralUpdate = (request: RecordDeferralRequest): ExpressionPart => {
  const firstSight = firstSightFields(request, request.nowMs);
  return {
    expression:
      "SET #status = if_not_exists(#status, :pending), " +
      "generation = if_not_exists(generation, :generation), " +
      "attempts = if_not_exists(attempts, :zero), nextAttemptAt = :due, dueBucket = :dueBucket, " +
      "deferral = :deferral, " +
      `updatedAt = :now, ${firstSight.expression}`,
    names: STATUS_NAME,
    values: {
      ":pending": EventStatus.PENDING,
      ":generation": request.generation,
      ":zero": 0,
      ...dueValues(request.eventId, request.dueMs),
      ":deferral": { cause: request.cause, targetKey: request.targetKey, at: isoOf(request.nowMs) },
      ...firstSight.values,
    },
  };
};

/** Counts a resubmission of the event id with another envelope. */
export const conflictUpdate = (request: RecordConflictRequest): ExpressionPart => ({
  expression:
    "SET conflictCount = if_not_exists(conflictCount, :zero) + :one, " +
    "lastConflictAt = :now, lastConflictDigest = :digest",
  values: { ":zero": 0, ":one": 1, ":now": isoOf(request.nowMs), ":digest": request.digest },
});

/**
 * Appended without a bound (a read-modify-write would race other operators); each entry is one
 * removed dead-letter copy, so the list stays short, and reads keep the newest.
 */
export const auditUpdate = (entry: AuditEntry): ExpressionPart => {
  const audit = appendingAudit(entry);
  return { expression: `SET ${audit.expression}`, values: audit.values };
};

/**
 * A redrive starts the event over at `generation` with a fresh budget, keeping its history and
 * noting the redrive; everything the previous generation left (lease, schedule, verdict) goes.
 */
export const redriveUpdate = (request: RedriveRecordRequest): ExpressionPart => {
  const restart = restartingAt(request);
  return {
    expression:
      `SET ${restart.expression}, attempts = if_not_exists(attempts, :zero), updatedAt = :now, ` +
      "createdAt = if_not_exists(createdAt, :now), history = if_not_exists(history, :empty), " +
      "redrives = list_append(if_not_exists(redrives, :empty), :audit) " +
      `REMOVE expiresAt, nextAttemptAt, dueBucket, deferral, deadLetterReason, ${LEASE_ATTRIBUTES}, ` +
      "listedStatus, pendingDeadLetter",
    names: STATUS_NAME,
    values: {
      ...restart.values,
      ":zero": 0,
      ":now": isoOf(request.nowMs),
      ":empty": [],
      ":audit": [request.audit],
    },
  };
};

/** A cancel ends a waiting event for good, audited, and lets TTL remove it later. */
export const cancelUpdate = (request: CancelRecordRequest): ExpressionPart => {
  const audit = appendingAudit(request.audit);
  return {
    expression: `SET #status = :cancelled, updatedAt = :now, expiresAt = :ttl, ${audit.expression} REMOVE nextAttemptAt, dueBucket, deferral`,
    names: STATUS_NAME,
    values: {
      ":cancelled": EventStatus.CANCELLED,
      ":now": isoOf(request.nowMs),
      ":ttl": ttlSeconds(request.nowMs, request.retentionSeconds),
      ...audit.values,
    },
  };
};

/** A replay sends a delivered event again at `generation` with a fresh budget, audited. */
export const replayUpdate = (request: ReplayRecordRequest): ExpressionPart => {
  const restart = restartingAt(request);
  const audit = appendingAudit(request.audit);
  return {
    expression:
      `SET ${restart.expression}, replays = if_not_exists(replays, :zero) + :one, ` +
      `updatedAt = :now, ${audit.expression} REMOVE expiresAt, nextAttemptAt, dueBucket`,
    names: STATUS_NAME,
    values: {
      ...restart.values,
      ":zero": 0,
      ":one": 1,
      ":now": isoOf(request.nowMs),
      ...audit.values,
    },
  };
};
