import type { Breaker } from "./circuit-breaker.js";
import type { DeadLetterMessage } from "./dead-letter.js";
import type { DeferralCause, DeferralNote } from "./deferral.js";
import type { Envelope } from "./envelope.js";
import type { LearnedLimitEntry } from "./learned-limits.js";
import type { AttemptResult } from "./outcome.js";
import type {
  AttemptEntry,
  AuditCaller,
  AuditEntry,
  CallerSource,
  EventRecord,
  PendingDeadLetter,
  RedriveEntry,
  UnverifiedCaller,
} from "./record.js";
import type { EventStatus } from "./status.js";
import type { isStuck } from "./stuck.js";
import type { targetKeyOfRecord } from "./target-key.js";
import type { stateChangeStamps, TargetNotes, targetErrorExcerpt } from "./target-view.js";
import type { TraceContext } from "./trace-context.js";

/*
 * The ports the orchestrator and redrive depend on. Adapters implement them over DynamoDB, SQS
 * and HTTP; the simulation implements them in memory. Every method either succeeds, returns a
 * domain outcome for a lost race, or throws a RicochetError subclass — never an AWS error.
 */

/**
 * What the write that creates an event's record knows of the event (a claim's, a deferral's):
 * every later write keeps these.
 */
export type FirstSight = Pick<
  ClaimRequest,
  | "eventId"
  | "generation"
  | "nowMs"
  | "attemptBudget"
  | "targetSummary"
  | "targetGroup"
  | "envelopeDigest"
  | "policyAdjustments"
>;

export interface ClaimRequest {
  readonly eventId: string;
  /** The generation the message was issued for (0 for a producer's original message). */
  readonly generation: number;
  readonly worker: string;
  readonly nowMs: number;
  readonly leaseMs: number;
  /** Budget to set if the record is new. */
  readonly attemptBudget: number;
  readonly targetSummary: string;
  /** The envelope's `target.group`, if any; kept if the record is new. */
  readonly targetGroup?: string | undefined;
  /** Digest of the envelope ({@link envelopeDigest}); the first one stored wins. */
  readonly envelopeDigest: string;
  /** How the event's policy was clamped to the deployment's limits; kept if the record is new. */
  readonly policyAdjustments?: readonly string[] | undefined;
}

/** The answer to a claim; only `claimed` lets the caller call the target. */
export type ClaimResult =
  | { readonly kind: "claimed"; readonly record: EventRecord; readonly takeover: boolean }
  /** The event is already terminal: a duplicate message, acknowledged and counted. */
  | { readonly kind: "finished"; readonly record: EventRecord }
  /** Another worker holds a live lease: put the message back until the lease ends. */
  | { readonly kind: "lease_held"; readonly leaseExpiresAt: number }
  /** The message is older than the record's generation: a stale copy, dropped. */
  | { readonly kind: "stale"; readonly record: EventRecord }
  /** The message is newer than the record: its issuer has not recorded it yet. Retry later. */
  | { readonly kind: "ahead"; readonly record: EventRecord }
  /**
   * The message carries a different envelope under the event's id (a conflicting resubmission):
   * the first envelope wins, this one is never attempted.
   */
  | { readonly kind: "conflict"; readonly record: EventRecord };

/** What an attempt's result write sets; the store adds timestamps and bookkeeping. */
export interface RecordResultRequest {
  readonly eventId: string;
  readonly worker: string;
  /** The generation claimed; the write only lands if the record is still at it, leased by us. */
  readonly generation: number;
  /** The generation the record moves to: one more when a new message was issued (a retry). */
  readonly newGeneration: number;
  readonly status: Extract<
    EventStatus,
    "delivered" | "retry_scheduled" | "rejected" | "dead_lettered"
  >;
  /** The record as claimed: its history is what the result extends (and trims once full). */
  readonly claimed: EventRecord;
  readonly entry: AttemptEntry;
  /**
   * The record's attempt count after this run, when it is not the claimed one: a run that made
   * no call gives its attempt back (lib/app/orchestrator/attempt.ts).
   */
  readonly attempts?: number | undefined;
  readonly nextAttemptAt?: string | undefined;
  readonly deadLetterReason?: string | undefined;
  readonly nowMs: number;
  /** TTL in seconds from now for terminal records. */
  readonly retentionSeconds: number;
}

export type RecordResultOutcome = { readonly kind: "recorded" } | { readonly kind: "lease_lost" };

/** Writes a dead-letter decision under the lease, before its copy is sent. */
export interface RecordPendingDeadLetterRequest {
  readonly eventId: string;
  readonly worker: string;
  /** The generation claimed; the write only lands if the record is still at it, leased by us. */
  readonly generation: number;
  readonly pending: PendingDeadLetter;
  readonly nowMs: number;
}

export interface RecordInvalidRequest {
  readonly eventId: string;
  readonly worker: string;
  readonly message: string;
  readonly nowMs: number;
  readonly retentionSeconds: number;
}

/** A conflicting resubmission seen for an event, counted on its record. */
export interface RecordConflictRequest {
  readonly eventId: string;
  /** Digest of the envelope that lost. */
  readonly digest: string;
  readonly nowMs: number;
}

/**
 * Records an event first seen before its `notBefore`: `scheduled`, due then, with no attempt
 * made. Written after the hop that carries the event was sent, so a crash in between leaves the
 * producer's message to come back, never a record with no message.
 */
export interface RecordScheduledRequest {
  readonly eventId: string;
  /** Digest of the envelope ({@link envelopeDigest}); the claim holds every later message to it. */
  readonly envelopeDigest: string;
  readonly dueMs: number;
  readonly nowMs: number;
  /** The budget the first claim will find (the policy's `maxAttempts`). */
  readonly attemptBudget: number;
  readonly targetSummary: string;
  readonly targetGroup?: string | undefined;
  readonly policyAdjustments?: readonly string[] | undefined;
}

/**
 * Notes on a waiting event's record that its target turned it away ({@link DeferralNote}) and
 * when it is tried next; creates the record, pending, on the event's first sight. Written before
 * the deferred message is sent: a crash in between leaves the source message to come back.
 */
export interface RecordDeferralRequest extends FirstSight {
  /** When the deferred message is due: the record's next attempt. */
  readonly dueMs: number;
  readonly cause: DeferralCause;
  readonly targetKey: string;
}

/** A deferral's write: landed, or refused by the record that is there (undefined: none). */
export type RecordDeferralOutcome =
  | { readonly kind: "recorded" }
  | { readonly kind: "refused"; readonly record: EventRecord | undefined };

/** A redrive's write: the record moves to `pending` at `generation`, with the budget and the entry. */
export interface RedriveRecordRequest {
  readonly eventId: string;
  /** The generation the redriven message carries; the write requires the record one below it. */
  readonly generation: number;
  readonly attemptBudget: number;
  readonly audit: RedriveEntry;
  readonly nowMs: number;
}

export type RedriveRecordOutcome =
  | { readonly kind: "recorded" }
  /** The record moved meanwhile (another redrive, or it is not terminal): not touched. */
  | { readonly kind: "conflict"; readonly record: EventRecord | undefined };

/** A cancel, written only over the record as the cancel judged it (lib/core/cancel-rule.ts). */
export interface CancelRecordRequest {
  readonly eventId: string;
  /** The status the cancel judged; the write lands only if the record is still in it. */
  readonly expectedStatus: EventStatus;
  /** The generation the cancel judged; the write lands only if the record is still at it. */
  readonly generation: number;
  readonly audit: AuditEntry;
  readonly nowMs: number;
  /** TTL in seconds from now: a cancelled record is finished. */
  readonly retentionSeconds: number;
}

/** A replay of a delivered event (lib/core/replay-rule.ts). */
export interface ReplayRecordRequest {
  readonly eventId: string;
  /** The generation the replayed message carries; the write requires the record one below it. */
  readonly generation: number;
  readonly attemptBudget: number;
  readonly audit: AuditEntry;
  readonly nowMs: number;
}

/** The answer to an operator's conditional write (cancel, replay). */
export type OperatorWriteOutcome = RedriveRecordOutcome;

export interface ListByStatusRequest {
  readonly status: EventStatus;
  /** Only records last updated before this instant. */
  readonly updatedBefore?: string | undefined;
  /**
   * Only events to this target key ({@link targetKeyOfRecord}). Filtered as the listing reads,
   * so it reads every record in the status until `limit` match.
   */
  readonly targetKey?: string | undefined;
  readonly limit: number;
  /**
   * Stop after reading about this many items, matching or not (whole pages: DynamoDB's `Limit`
   * bounds the items a page evaluates). Without it a listing of a status outside the index, or
   * filtered by target, may read the whole table to find `limit` matches. Default: no bound.
   */
  readonly maxItemsRead?: number | undefined;
}

/** A listing of the most recently updated events, whatever their status. */
export interface ListRecentRequest {
  /** Only records last updated before this instant. */
  readonly updatedBefore?: string | undefined;
  /** Only events to this target key ({@link targetKeyOfRecord}). */
  readonly targetKey?: string | undefined;
  readonly limit: number;
  /**
   * Stop after reading about this many items (whole pages). A store with no order by time must
   * read every record to find the newest: without a bound, that is the whole table.
   */
  readonly maxItemsRead?: number | undefined;
}

/** A listing of stuck events ({@link isStuck}), read from an index of waiting records by due time. */
export interface ListStuckRequest {
  /** Now − the stuck margin (epoch ms): only events due before this are stuck. */
  readonly cutoffMs: number;
  /** How many days before the cutoff the index is read back (a stuck event never expires). */
  readonly lookbackDays: number;
  readonly limit: number;
}

/** The records of a {@link EventStore.listByStatus}, and whether the read budget cut it short. */
export interface StatusListing {
  readonly records: EventRecord[];
  /**
   * True when `maxItemsRead` ran out before `limit` records were found and before the status
   * was read through: more records may match than are listed.
   */
  readonly cutShort: boolean;
}

/** The attempt store: one record per event. */
export interface EventStore {
  claim(request: ClaimRequest): Promise<ClaimResult>;
  recordResult(request: RecordResultRequest): Promise<RecordResultOutcome>;
  /**
   * Notes a dead-letter decision on the leased record (cleared by the result write and by a
   * redrive), so that a takeover finishes it instead of calling again.
   */
  recordPendingDeadLetter(request: RecordPendingDeadLetterRequest): Promise<RecordResultOutcome>;
  /** Records an envelope that failed validation, unless a record with that id already exists. */
  recordInvalid(request: RecordInvalidRequest): Promise<void>;
  /**
   * Records an event as `scheduled` if it has no record yet, or the same schedule again (a
   * duplicate of the producer's message); any other record is left alone.
   */
  recordScheduled(request: RecordScheduledRequest): Promise<void>;
  /**
   * Notes a deferral on a waiting record of the same envelope and generation, or creates the
   * record (lib/core/deferral.ts); any other record is left alone and returned.
   */
  recordDeferral(request: RecordDeferralRequest): Promise<RecordDeferralOutcome>;
  recordRedrive(request: RedriveRecordRequest): Promise<RedriveRecordOutcome>;
  /** Marks a waiting event cancelled, unless it moved since the cancel read it. */
  recordCancel(request: CancelRecordRequest): Promise<OperatorWriteOutcome>;
  /** Moves a delivered event back to pending at the next generation, for a replay. */
  recordReplay(request: ReplayRecordRequest): Promise<OperatorWriteOutcome>;
  /** Counts a conflicting resubmission on the record (no-op when the record is gone). */
  recordConflict(request: RecordConflictRequest): Promise<void>;
  /** Appends an operator action to the record's audit trail (no-op when the record is gone). */
  appendAudit(eventId: string, entry: AuditEntry): Promise<void>;
  get(eventId: string): Promise<EventRecord | undefined>;
  listByStatus(request: ListByStatusRequest): Promise<StatusListing>;
  /**
   * The `limit` most recently updated records, newest first, among those read; `cutShort` when
   * the read budget ran out before the table did (newer records may exist).
   */
  listRecent(request: ListRecentRequest): Promise<StatusListing>;
  /**
   * Waiting records long past due with no claim since: stuck, oldest due first, each confirmed by
   * a consistent read. Never scans: only the index's due buckets are queried.
   */
  listStuck(request: ListStuckRequest): Promise<StatusListing>;
}

/**
 * Who AWS says signs this process's calls, for audit entries. Never throws: an operator action
 * must not fail for want of a name, so a failed lookup is an {@link UnverifiedCaller} with why.
 */
export interface CallerIdentity {
  /** Whose credentials these are, so that an entry says what its caller names. */
  readonly source: CallerSource;
  lookup(): Promise<AuditCaller>;
}

/** Scheduling facts carried beside the envelope, as message attributes. */
export interface MessageSchedule {
  readonly generation: number;
  /** Epoch ms before which the event must not be attempted (long delays are reached by hops). */
  readonly notBeforeMs?: number | undefined;
  /** The producer's trace context, carried on every message Ricochet re-sends for the event. */
  readonly trace?: TraceContext | undefined;
}

/**
 * Which queue a message came from. Producers may send to the ingress queue only; the internal
 * queue accepts sends from Ricochet's own roles (orchestrator, redrive), which is what makes its
 * scheduling attributes trustworthy. See docs/design-notes.md, "Who may speak for Ricochet".
 */
export const MessageOrigin = {
  PRODUCER: "producer",
  RICOCHET: "ricochet",
} as const;
export type MessageOrigin = (typeof MessageOrigin)[keyof typeof MessageOrigin];

/** What identifies a received message to the queue it came from. */
export interface MessageHandle {
  readonly receiptHandle: string;
  readonly origin: MessageOrigin;
}

/** A message as a consumer sees it, whatever queue it came from. */
export interface ReceivedMessage extends MessageHandle {
  readonly messageId: string;
  readonly body: string;
  /** As read from the attributes; only trusted when `origin` is Ricochet's own queue. */
  readonly schedule: MessageSchedule;
  /** Names of Ricochet's reserved (`ricochet.*`) attributes the message carried. */
  readonly reservedAttributes: readonly string[];
  readonly receiveCount: number;
  /** When the message was first sent (epoch ms). */
  readonly sentAtMs: number;
  /** The trace context it carried, if a valid one (lib/core/trace-context.ts). */
  readonly trace?: TraceContext | undefined;
}

/**
 * The orchestrator's two input queues, as the orchestrator and redrive use them: the ingress
 * queue producers write to, and the internal queue only Ricochet's roles may write to.
 */
export interface IngressQueue {
  /**
   * Sends the envelope's body on the internal queue, with a delay of at most 900 s: SQS's limit,
   * which every implementation clamps to (`clampDelaySeconds` in the SQS adapter), as the
   * emulators accept longer delays real SQS rejects. Every retry, hop and redrive goes this way,
   * never via the ingress queue, so a producer cannot issue one.
   */
  send(body: string, schedule: MessageSchedule, delaySeconds: number): Promise<void>;
  /** Hides a received message, on whichever queue it came from, for `seconds` more (0: at once). */
  changeVisibility(message: MessageHandle, seconds: number): Promise<void>;
  /**
   * Gathers the sends of one batch of messages, so that an invocation's retries, hops and
   * deferrals share requests even when their calls end far apart. Absent where sends are not
   * batched: each goes as it comes.
   */
  gatherSends?(): SendGathering;
}

/** The sends of one batch: see {@link IngressQueue.gatherSends}. */
interface SendGathering {
  /** The queue to send through while the batch runs. */
  readonly queue: IngressQueue;
  /** A message of the batch started: a gathered send may wait for it to send or end. */
  begin(): void;
  /** That message is done: it sends nothing more. */
  end(): void;
}

/** A message read from the dead-letter queue, before its body and summary are interpreted. */
export interface ReceivedDeadLetter {
  readonly messageId: string;
  readonly receiptHandle: string;
  /** The event's body exactly as its producer sent it (or, for older copies, Ricochet's JSON). */
  readonly body: string;
  /** Ricochet's summary attribute, when Ricochet sent the copy (absent on native moves). */
  readonly summary?: string | undefined;
  /** Scheduling attributes a natively moved message kept from its queue. */
  readonly schedule: MessageSchedule;
  readonly receiveCount: number;
  readonly sentAtMs: number;
}

/** The dead-letter queue. */
export interface DeadLetterQueue {
  send(message: DeadLetterMessage): Promise<void>;
  receive(options: {
    maxMessages: number;
    visibilityTimeoutSeconds: number;
    waitSeconds: number;
  }): Promise<ReceivedDeadLetter[]>;
  delete(receiptHandle: string): Promise<void>;
  changeVisibility(receiptHandle: string, seconds: number): Promise<void>;
}

/** Everything an adapter needs to make one call. */
export interface DeliveryRequest {
  readonly envelope: Envelope;
  readonly attempt: number;
  /**
   * Longest the call may take, when the caller must cut it shorter than the target's own
   * timeout (the function has less time left than the target would take).
   */
  readonly timeoutMs?: number | undefined;
  /** Called the moment the request leaves, so the record can say when it was sent. */
  readonly onSent?: (() => void) | undefined;
  /** The replay this call belongs to (1 for the first), when the event was replayed. */
  readonly replay?: number | undefined;
  /** The producer's trace context, handed to the target so that its receiver joins the trace. */
  readonly trace?: TraceContext | undefined;
}

/** Delivers one attempt. Never throws for a failed call: failures are results. */
export interface DeliveryTarget {
  deliver(request: DeliveryRequest): Promise<AttemptResult>;
}

/** Picks the adapter for a target type. */
export interface TargetRouter {
  forTarget(type: Envelope["target"]["type"]): DeliveryTarget;
}

/** A target's breaker as the shared store holds it; `version` guards every replacement. */
export interface StoredBreaker {
  readonly key: string;
  readonly breaker: Breaker;
  readonly version: number;
  /** What operators see beside the state; never read by the breaker's decisions. */
  readonly notes?: TargetNotes | undefined;
}

/** A target as `ricochet targets` lists it. */
export interface ListedTarget extends StoredBreaker {
  /** When its item was last written (ISO 8601). */
  readonly updatedAt: string;
  /** The instances' learned limits as written, stale ones included (readers filter them). */
  readonly learned?: readonly LearnedLimitEntry[] | undefined;
}

/** One instance's learned limit for a target, written into the target's item (#35). */
export interface LearnedLimitWrite {
  readonly key: string;
  readonly instanceId: string;
  /** The entry to write; undefined when the instance no longer holds the target back. */
  readonly entry: LearnedLimitEntry | undefined;
  readonly nowMs: number;
}

/** What a breaker write may carry besides its own change, at no extra cost. */
export interface TargetWriteExtras {
  /** Deferrals this instance made since it last wrote them, added to the item's count. */
  readonly deferred?: number | undefined;
  /** The failure being written, as {@link targetErrorExcerpt} cut it. */
  readonly lastError?: string | undefined;
}

export interface CountFailureRequest extends TargetWriteExtras {
  readonly key: string;
  /** Successful calls this instance counted since it last wrote (successes are never written alone). */
  readonly successes: number;
  /** Failed calls counted by this write: the one that prompted it and those held since (at least 1). */
  readonly failures: number;
  /** Start of the window the failure falls in; an item holding an older window starts over. */
  readonly windowStartMs: number;
  readonly nowMs: number;
}

export interface ReplaceBreakerRequest extends TargetWriteExtras {
  readonly key: string;
  /** The version the caller read (0: none stored yet); the write lands only if it still is. */
  readonly version: number;
  readonly breaker: Breaker;
  readonly nowMs: number;
}

export type ReplaceBreakerResult =
  | { readonly kind: "replaced"; readonly stored: StoredBreaker }
  /** Another instance changed the breaker first: here is what it holds now. */
  | { readonly kind: "moved"; readonly stored: StoredBreaker };

/**
 * Where the targets' breakers are shared between instances. Only failures and state changes are
 * written; a closed breaker's successful calls cost nothing here.
 */
export interface TargetStateStore {
  /** Counts failed calls (and `successes`) in the target's window; returns the breaker after. */
  countFailure(request: CountFailureRequest): Promise<StoredBreaker>;
  /**
   * Replaces the breaker's state if it is still at `request.version`; the notes are kept, with
   * the state change's stamps ({@link stateChangeStamps}) and the extras added.
   */
  replace(request: ReplaceBreakerRequest): Promise<ReplaceBreakerResult>;
  /**
   * Adds deferrals to the count of a target whose item exists, without changing its version (a
   * count must not make a probe's result lose its race).
   */
  addDeferrals(key: string, count: number, nowMs: number): Promise<void>;
  get(key: string): Promise<StoredBreaker | undefined>;
  /** The targets whose breakers have an item, most recently written first. */
  list(limit: number): Promise<ListedTarget[]>;
  /**
   * Writes (or removes) one instance's learned-limit entry on the target's item, and prunes the
   * item's stale and surplus entries (`entriesToPrune`); moves no version. Returns the entries
   * the item holds after the write, the writer's own and the pruned excluded: what the other
   * instances holding the target back last said, read at no extra cost.
   */
  writeLearnedLimit(write: LearnedLimitWrite): Promise<readonly LearnedLimitEntry[]>;
}

/** One slot of a target's concurrency limit, leased to one call. */
export interface SlotRequest {
  readonly key: string;
  /** 0 ≤ slot < the target's `maxConcurrentCalls`. */
  readonly slot: number;
  /** Unique to the call: only its holder can give a slot back. */
  readonly holder: string;
  readonly nowMs: number;
  /** When the lease lapses if never given back (its instance stopped). */
  readonly leaseUntilMs: number;
}

/** A rate window's count after one more call was asked for in it. */
export interface RateCount {
  /** The window counted in: the one asked for, or a later one another instance started. */
  readonly windowStartMs: number;
  readonly count: number;
}

/**
 * Where the targets' concurrency slots and rate counters are shared between instances. Only
 * targets with a limit ever reach it.
 */
export interface TargetLimitsStore {
  /** Takes the slot if it is free or its lease has lapsed at `nowMs`; false if it is held. */
  takeSlot(request: SlotRequest): Promise<boolean>;
  /** Gives the slot back if `holder` still holds it (a lapsed lease may have been taken over). */
  releaseSlot(key: string, slot: number, holder: string): Promise<void>;
  /**
   * Counts `calls` calls (default one) asked for in the window starting at `windowStartMs`: into
   * it if the counter holds it or a later one, else the counter starts over at this window. The
   * count returned includes them.
   */
  countCall(key: string, windowStartMs: number, nowMs: number, calls?: number): Promise<RateCount>;
}
