import type { DeadLetterReason } from "./decide.js";
import type { DeferralNote } from "./deferral.js";
import type { Outcome, OutcomeClass } from "./outcome.js";
import type { EventStatus } from "./status.js";
import type { targetKeyOfRecord } from "./target-key.js";

/** Whose credentials an audit entry's `caller` names: it says which of two different things it is. */
export const CallerSource = {
  /** The credentials the operator's CLI signed its calls with: the person or automation acting. */
  OPERATOR: "operator_credentials",
  /**
   * The operator function's own role. A direct Invoke passes nothing of its invoker into the
   * function, so the invoker is not this: it is in CloudTrail, under the request id logged.
   * The value keeps the function's former name: it is stored in audit entries already written.
   */
  FUNCTION_ROLE: "redrive_function_role",
} as const;
export type CallerSource = (typeof CallerSource)[keyof typeof CallerSource];

/** What STS's GetCallerIdentity answered: AWS's word, bound to the request's signature. */
interface VerifiedCaller {
  readonly source: CallerSource;
  /** `arn:aws:iam::…:user/ana`, `arn:aws:sts::…:assumed-role/role/session`. */
  readonly arn: string;
  readonly account: string;
  /** The principal's unique id (`AIDA…`, or `AROA…:session` for an assumed role). */
  readonly userId: string;
}

/**
 * No answer from STS (the local emulators have none, no network, expired credentials, a
 * timeout): the action still happened, and `unverified` says why nobody can vouch for who did it.
 */
export interface UnverifiedCaller {
  readonly source: CallerSource;
  readonly unverified: string;
}

/**
 * The principal AWS reported for whoever made a change, beside the self-declared `by`. See
 * docs/design-notes.md, "Who did it".
 */
export type AuditCaller = VerifiedCaller | UnverifiedCaller;

/**
 * A caller as the releases before the structured {@link AuditCaller} stored it: one string, the
 * ARN STS answered or `unverified`, not saying whose credentials it names. The store reads such
 * an entry's string into this, so no reader meets the old form.
 */
export interface LegacyCaller {
  readonly recorded: string;
}

/** An entry's `caller` as read back: what is written now, or the older form of it. */
export type RecordedCaller = AuditCaller | LegacyCaller;

/** How many finished attempts a record keeps; older ones are dropped, the count stays exact. */
export const MAX_HISTORY_ENTRIES = 20;

/** One finished (or abandoned) attempt, as kept in a record's history. */
export interface AttemptEntry {
  readonly attempt: number;
  readonly worker: string;
  readonly claimedAt: string;
  readonly sentAt?: string | undefined;
  readonly finishedAt: string;
  readonly outcome: OutcomeClass;
  readonly statusCode?: number | undefined;
  readonly errorCategory?: string | undefined;
  readonly message: string;
  /** The delay chosen before the next attempt, when one was scheduled. */
  readonly delaySeconds?: number | undefined;
  /**
   * The run ended the event without trying the target (deadline or budget passed, target
   * refused): no call was made, and `attempt` is the count it left, the calls made before it.
   */
  readonly noCall?: true | undefined;
  /** The trace the attempt belongs to (the producer's), when its message carried one. */
  readonly traceId?: string | undefined;
}

/** Who brought an event back from the dead-letter queue, when, why and with what budget. */
export interface RedriveEntry {
  readonly at: string;
  /** Who the operator said they are (`--by`, the request's `by`): self-declared, not checked. */
  readonly by: string;
  /** Who AWS says acted; absent on entries written before callers were recorded. */
  readonly caller?: RecordedCaller | undefined;
  readonly reason: string;
  readonly previousStatus: EventStatus;
  readonly previousAttempts: number;
  readonly attemptBudget: number;
}

/** How many operator audit entries (other than redrives) a record keeps. */
export const MAX_AUDIT_ENTRIES = 20;

/** Operator actions recorded on an event besides redrives. */
export const AuditAction = {
  /** A dead-letter copy of a finished event was removed (`ricochet dlq clean`). */
  DEAD_LETTER_COPY_REMOVED: "dead_letter_copy_removed",
  /** The event was withdrawn before delivery (`ricochet cancel`); see lib/core/cancel-rule.ts. */
  CANCELLED: "cancelled",
  /** A delivered event was sent again as a new generation (`ricochet replay`). */
  REPLAYED: "replayed",
} as const;
export type AuditAction = (typeof AuditAction)[keyof typeof AuditAction];

/** One operator action on an event: who, when, what and why. */
export interface AuditEntry {
  readonly at: string;
  readonly by: string;
  /** Who AWS says acted; absent on entries written before callers were recorded. */
  readonly caller?: RecordedCaller | undefined;
  readonly action: AuditAction;
  readonly reason: string;
  /** The SQS message the action concerned, when there was one. */
  readonly messageId?: string | undefined;
  /** The status the action moved the event from (cancel, replay). */
  readonly previousStatus?: EventStatus | undefined;
}

/**
 * A dead-letter decision made under the lease and written before the copy is sent. If the
 * worker dies or the result write fails after that, whoever takes the event over finishes this
 * decision (re-sends the same copy, records the end) instead of calling the target again: a call
 * after the copy left could deliver the event while its copy sits in the dead-letter queue.
 */
export interface PendingDeadLetter {
  readonly reason: Exclude<DeadLetterReason, "invalid_envelope" | "unprocessed">;
  /** The attempt that decided it, stored in the history when the decision is recorded. */
  readonly entry: AttemptEntry;
  readonly lastOutcome: Outcome;
  /** The generation the decision was made at (the copy says so). */
  readonly generation: number;
  /** The attempt count the copy reports. */
  readonly attempts: number;
  readonly decidedAt: string;
}

/** Conflicting resubmissions seen for an event: same id, another envelope. */
interface ConflictSummary {
  readonly count: number;
  readonly lastAt: string;
  /** Digest of the most recent losing envelope. */
  readonly lastDigest: string;
}

/** The attempt record: one item per event, keyed by `eventId`. */
export interface EventRecord {
  readonly eventId: string;
  readonly status: EventStatus;
  /**
   * Bumped each time a new message is issued for the event (retry, redrive). A message carries
   * the generation it was issued for, which is how stale and early copies are told apart.
   */
  readonly generation: number;
  /**
   * Calls made so far, plus the re-runs a lost lease forced (a run that may have called before
   * its worker stopped). A run Ricochet ended before trying the target (deadline or budget
   * passed, target refused by its own rules) gives its attempt back, unless the policy retries
   * it: see docs/design-notes.md, "What an attempt counts".
   */
  readonly attempts: number;
  /** Runs allowed in total; a redrive raises it. */
  readonly attemptBudget: number;
  readonly leaseOwner?: string | undefined;
  readonly leaseExpiresAt?: number | undefined;
  /** The attempt being made now (set by a claim, cleared by the result). */
  readonly currentAttempt?:
    | { readonly attempt: number; readonly worker: string; readonly claimedAt: string }
    | undefined;
  /** When the event is tried next: its retry's, its schedule's or its deferral's due time. */
  readonly nextAttemptAt?: string | undefined;
  /** Set while a target's breaker or limits hold the waiting event back (lib/core/deferral.ts). */
  readonly deferral?: DeferralNote | undefined;
  readonly lastOutcome?: Outcome | undefined;
  readonly lastDelaySeconds?: number | undefined;
  readonly deadLetterReason?: DeadLetterReason | undefined;
  /** Set between a dead-letter decision and its result write; see {@link PendingDeadLetter}. */
  readonly pendingDeadLetter?: PendingDeadLetter | undefined;
  readonly history: readonly AttemptEntry[];
  readonly redrives: readonly RedriveEntry[];
  /** Where the event goes, without secrets: `http POST https://host/path` or `lambda name`. */
  readonly targetSummary?: string | undefined;
  /**
   * The envelope's `target.group`, kept only when it has one: with the summary, it gives the
   * event's target key ({@link targetKeyOfRecord}) at no cost to ungrouped events' records.
   */
  readonly targetGroup?: string | undefined;
  /**
   * Digest of the envelope the event was first accepted with (absent on records written before
   * digests, and on an invalid envelope's placeholder). A message with another digest under
   * this id is a conflicting resubmission and is never attempted.
   */
  readonly envelopeDigest?: string | undefined;
  readonly conflicts?: ConflictSummary | undefined;
  readonly audit?: readonly AuditEntry[] | undefined;
  /**
   * How many times the event was replayed after delivery. Every call made since the last replay
   * carries it as `Ricochet-Replay` (absent: never replayed).
   */
  readonly replays?: number | undefined;
  /** How the producer's policy override was clamped to the deployment's limits, if it was. */
  readonly policyAdjustments?: readonly string[] | undefined;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** DynamoDB TTL (epoch seconds), set once the record is terminal. */
  readonly expiresAt?: number | undefined;
}

/** Appends to a bounded list, dropping the oldest entries. */
export const appendBounded = <T>(list: readonly T[], entry: T, max: number): T[] =>
  [...list, entry].slice(-max);
