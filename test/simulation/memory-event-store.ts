import { cancelledRecord, mayRecordCancel } from "../../lib/core/cancel-rule.js";
import { claimedRecord, explainRefusedClaim, mayClaim } from "../../lib/core/claim.js";
import { deferredRecord, mayRecordDeferral } from "../../lib/core/deferral.js";
import type { Outcome } from "../../lib/core/outcome.js";
import type {
  CancelRecordRequest,
  ClaimRequest,
  ClaimResult,
  EventStore,
  ListByStatusRequest,
  ListRecentRequest,
  ListStuckRequest,
  OperatorWriteOutcome,
  RecordConflictRequest,
  RecordDeferralOutcome,
  RecordDeferralRequest,
  RecordInvalidRequest,
  RecordPendingDeadLetterRequest,
  RecordResultOutcome,
  RecordResultRequest,
  RecordScheduledRequest,
  RedriveRecordOutcome,
  RedriveRecordRequest,
  ReplayRecordRequest,
  StatusListing,
} from "../../lib/core/ports.js";
import {
  type AuditEntry,
  appendBounded,
  type EventRecord,
  MAX_HISTORY_ENTRIES,
} from "../../lib/core/record.js";
import { mayRedrive } from "../../lib/core/redrive-rule.js";
import { mayRecordReplay, replayedRecord } from "../../lib/core/replay-rule.js";
import { canTransition, EventStatus, isTerminal } from "../../lib/core/status.js";
import { isStuck } from "../../lib/core/stuck.js";
import { targetKeyOfRecord } from "../../lib/core/target-key.js";
import { isoOf } from "../../lib/core/time-format.js";

/*
 * The attempt store in memory, for the simulation and the hostile-input test. Each method is one
 * synchronous read-check-write, so it is atomic exactly like DynamoDB's conditional UpdateItem;
 * the conditions and updates are transcribed, one for one, from
 * lib/adapters/dynamo-event-store/conditions.ts and updates.ts. Records go in and out as copies,
 * as they would over the wire.
 */

export interface MemoryEventStoreOptions {
  /**
   * A deliberately broken store for the simulation's self-test: claims ignore a live lease, as if
   * the condition `leaseExpiresAt < :nowMs` had been forgotten.
   */
  readonly ignoreLeases?: boolean;
}

/** An {@link EventStore} whose records can also be read back whole by the invariant checks. */
export interface MemoryEventStore extends EventStore {
  /** Every record, by event id (copies). */
  snapshot(): Map<string, EventRecord>;
  /** Whether the event has a record now (no copy made: the checks ask it for every message). */
  has(eventId: string): boolean;
  /** Writes that made a move the state machine forbids (none, when the rules agree). */
  illegalTransitions(): string[];
}

const ttlSeconds = (nowMs: number, retentionSeconds: number): number =>
  Math.floor(nowMs / 1000) + retentionSeconds;

/** Drops keys whose value is undefined, as DynamoDB's REMOVE (and marshalling) would. */
const compact = (record: EventRecord): EventRecord =>
  Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== undefined),
  ) as unknown as EventRecord;

export const createMemoryEventStore = (options: MemoryEventStoreOptions = {}): MemoryEventStore => {
  const items = new Map<string, EventRecord>();
  const read = (eventId: string): EventRecord | undefined => {
    const item = items.get(eventId);
    return item === undefined ? undefined : structuredClone(item);
  };
  // Every write passes through the state machine, so the simulation also proves that the store's
  // rules never make a move lib/core/status.ts does not allow. The move is made anyway and noted:
  // an exception here would be swallowed as a store failure and the run would look healthy.
  const illegal: string[] = [];
  const write = (record: EventRecord): void => {
    const from = items.get(record.eventId)?.status;
    if (!canTransition(from, record.status)) {
      illegal.push(`${record.eventId}: ${from ?? "(new)"} -> ${record.status}`);
    }
    items.set(record.eventId, structuredClone(compact(record)));
  };

  const claim = async (request: ClaimRequest): Promise<ClaimResult> => {
    const { eventId, generation, nowMs } = request;
    const old = read(eventId);
    // A store that ignores leases sees every lease as expired: the broken build the simulation
    // must catch.
    const admitted = mayClaim(
      old,
      generation,
      options.ignoreLeases === true ? Number.POSITIVE_INFINITY : nowMs,
      request.envelopeDigest,
    );
    if (old !== undefined && !admitted) {
      return explainRefusedClaim(old, generation, nowMs, request.envelopeDigest);
    }
    const record = claimedRecord(old, request);
    write(record);
    return {
      kind: "claimed",
      record: structuredClone(compact(record)),
      // What the store can vouch for: the previous holder's lease had expired. The same as the
      // DynamoDB store's answer whenever the claim rules hold (they admit no other claim over a
      // record in flight); a store that ignores leases thus owns up to no takeover when it
      // steals a live lease, and the bounded-work check sees the extra call.
      takeover: old?.status === EventStatus.IN_FLIGHT && (old.leaseExpiresAt ?? 0) < nowMs,
    };
  };

  // status = in_flight AND leaseOwner = :worker AND generation = :generation
  const holdingTheLease = (
    old: EventRecord | undefined,
    request: { readonly worker: string; readonly generation: number },
  ): old is EventRecord =>
    old !== undefined &&
    old.status === EventStatus.IN_FLIGHT &&
    old.leaseOwner === request.worker &&
    old.generation === request.generation;

  const recordPendingDeadLetter = async (
    request: RecordPendingDeadLetterRequest,
  ): Promise<RecordResultOutcome> => {
    const old = read(request.eventId);
    if (!holdingTheLease(old, request)) return { kind: "lease_lost" };
    write({ ...old, pendingDeadLetter: request.pending, updatedAt: isoOf(request.nowMs) });
    return { kind: "recorded" };
  };

  const recordResult = async (request: RecordResultRequest): Promise<RecordResultOutcome> => {
    const old = read(request.eventId);
    if (!holdingTheLease(old, request)) return { kind: "lease_lost" };
    const { entry, nowMs } = request;
    write({
      ...old,
      attempts: request.attempts ?? old.attempts,
      status: request.status,
      generation: request.newGeneration,
      history: appendBounded(request.claimed.history, entry, MAX_HISTORY_ENTRIES),
      lastOutcome: {
        class: entry.outcome,
        statusCode: entry.statusCode,
        errorCategory: entry.errorCategory as Outcome["errorCategory"],
        message: entry.message,
      },
      updatedAt: isoOf(nowMs),
      leaseOwner: undefined,
      leaseExpiresAt: undefined,
      currentAttempt: undefined,
      pendingDeadLetter: undefined,
      nextAttemptAt: request.nextAttemptAt,
      lastDelaySeconds: entry.delaySeconds,
      deadLetterReason: request.deadLetterReason as EventRecord["deadLetterReason"],
      expiresAt: isTerminal(request.status)
        ? ttlSeconds(nowMs, request.retentionSeconds)
        : undefined,
    });
    return { kind: "recorded" };
  };

  const recordInvalid = async (request: RecordInvalidRequest): Promise<void> => {
    // attribute_not_exists(eventId): never overwrite a valid event's record.
    if (items.has(request.eventId)) return;
    const now = isoOf(request.nowMs);
    write({
      eventId: request.eventId,
      status: EventStatus.REJECTED,
      generation: 0,
      attempts: 0,
      attemptBudget: 0,
      deadLetterReason: "invalid_envelope",
      lastOutcome: { class: "permanent", message: request.message },
      history: [
        {
          attempt: 0,
          worker: request.worker,
          claimedAt: now,
          finishedAt: now,
          outcome: "permanent",
          message: `invalid envelope: ${request.message}`,
        },
      ],
      redrives: [],
      createdAt: now,
      updatedAt: now,
      expiresAt: ttlSeconds(request.nowMs, request.retentionSeconds),
    });
  };

  const recordScheduled = async (request: RecordScheduledRequest): Promise<void> => {
    const old = read(request.eventId);
    // attribute_not_exists(eventId) OR (scheduled AND generation 0 AND the same digest)
    if (
      old !== undefined &&
      !(
        old.status === EventStatus.SCHEDULED &&
        old.generation === 0 &&
        old.envelopeDigest === request.envelopeDigest
      )
    ) {
      return;
    }
    const now = isoOf(request.nowMs);
    const adjustments = request.policyAdjustments ?? [];
    write({
      ...(old ?? {
        eventId: request.eventId,
        attempts: 0,
        attemptBudget: request.attemptBudget,
        createdAt: now,
        history: [],
        redrives: [],
        targetSummary: request.targetSummary,
        envelopeDigest: request.envelopeDigest,
        ...(adjustments.length > 0 ? { policyAdjustments: adjustments } : {}),
        ...(request.targetGroup === undefined ? {} : { targetGroup: request.targetGroup }),
      }),
      status: EventStatus.SCHEDULED,
      generation: 0,
      nextAttemptAt: isoOf(request.dueMs),
      updatedAt: now,
    });
  };

  const recordDeferral = async (request: RecordDeferralRequest): Promise<RecordDeferralOutcome> => {
    const old = read(request.eventId);
    if (!mayRecordDeferral(old, request)) return { kind: "refused", record: old };
    write(deferredRecord(old, request));
    return { kind: "recorded" };
  };

  const recordRedrive = async (request: RedriveRecordRequest): Promise<RedriveRecordOutcome> => {
    const old = read(request.eventId);
    if (!mayRedrive(old, request.generation, request.nowMs)) {
      return { kind: "conflict", record: old };
    }
    const now = isoOf(request.nowMs);
    write({
      ...(old ?? { eventId: request.eventId, attempts: 0, createdAt: now, history: [] }),
      status: EventStatus.PENDING,
      generation: request.generation,
      attemptBudget: request.attemptBudget,
      updatedAt: now,
      redrives: [...(old?.redrives ?? []), request.audit],
      expiresAt: undefined,
      nextAttemptAt: undefined,
      deferral: undefined,
      deadLetterReason: undefined,
      leaseOwner: undefined,
      leaseExpiresAt: undefined,
      currentAttempt: undefined,
      pendingDeadLetter: undefined,
    });
    return { kind: "recorded" };
  };

  const recordCancel = async (request: CancelRecordRequest): Promise<OperatorWriteOutcome> => {
    const old = read(request.eventId);
    if (!mayRecordCancel(old, request)) return { kind: "conflict", record: old };
    write(cancelledRecord(old, request));
    return { kind: "recorded" };
  };

  const recordReplay = async (request: ReplayRecordRequest): Promise<OperatorWriteOutcome> => {
    const old = read(request.eventId);
    if (!mayRecordReplay(old, request.generation)) return { kind: "conflict", record: old };
    write(replayedRecord(old, request));
    return { kind: "recorded" };
  };

  const listed = (request: ListRecentRequest, status?: EventRecord["status"]): EventRecord[] =>
    [...items.values()]
      .filter(
        (r) =>
          (status === undefined || r.status === status) &&
          (request.updatedBefore === undefined || r.updatedAt < request.updatedBefore) &&
          (request.targetKey === undefined || targetKeyOfRecord(r) === request.targetKey),
      )
      // The byStatus index sorts by updatedAt.
      .sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : 0));

  // Reads everything: a read budget bounds cost, of which memory has none, so nothing is cut short.
  const listByStatus = async (request: ListByStatusRequest): Promise<StatusListing> => ({
    cutShort: false,
    records: listed(request, request.status)
      .slice(0, request.limit)
      .map((r) => structuredClone(r)),
  });

  const listRecent = async (request: ListRecentRequest): Promise<StatusListing> => ({
    cutShort: false,
    records: listed(request)
      .reverse()
      .slice(0, request.limit)
      .map((r) => structuredClone(r)),
  });

  // Reads every record, as the due index's buckets hold exactly the waiting ones.
  const listStuck = async (request: ListStuckRequest): Promise<StatusListing> => ({
    cutShort: false,
    records: [...items.values()]
      .filter((r) => isStuck(r, request.cutoffMs))
      .slice(0, request.limit)
      .map((r) => structuredClone(r)),
  });

  const recordConflict = async (request: RecordConflictRequest): Promise<void> => {
    const old = read(request.eventId);
    if (old === undefined) return;
    items.set(request.eventId, {
      ...old,
      conflicts: {
        count: (old.conflicts?.count ?? 0) + 1,
        lastAt: isoOf(request.nowMs),
        lastDigest: request.digest,
      },
    });
  };

  const appendAudit = async (eventId: string, entry: AuditEntry): Promise<void> => {
    const old = read(eventId);
    if (old !== undefined) items.set(eventId, { ...old, audit: [...(old.audit ?? []), entry] });
  };

  return {
    claim,
    recordResult,
    recordPendingDeadLetter,
    recordInvalid,
    recordScheduled,
    recordDeferral,
    recordRedrive,
    recordCancel,
    recordReplay,
    recordConflict,
    appendAudit,
    get: async (eventId) => read(eventId),
    listByStatus,
    listRecent,
    listStuck,
    illegalTransitions: () => [...illegal],
    snapshot: () => new Map([...items].map(([id, r]) => [id, structuredClone(r)])),
    has: (eventId) => items.has(eventId),
  };
};
