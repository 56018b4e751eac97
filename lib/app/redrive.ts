import { MAX_SQS_VISIBILITY_TIMEOUT_SECONDS } from "../contract/aws-limits.js";
import { callerFieldOnce } from "../core/caller.js";
import { sameEnvelope } from "../core/claim.js";
import type { DeadLetterMessage } from "../core/dead-letter.js";
import { DeadLetterReason } from "../core/decide.js";
import { type Envelope, parseEnvelope } from "../core/envelope.js";
import { envelopeDigest, shortDigest } from "../core/envelope-digest.js";
import { errorMessage, formatProblems } from "../core/errors.js";
import { type RetryPolicy, resolvePolicy } from "../core/policy.js";
import {
  applyPolicyLimits,
  DEFAULT_POLICY_LIMITS,
  type PolicyLimits,
} from "../core/policy-limits.js";
import type { CallerIdentity, DeadLetterQueue, EventStore, IngressQueue } from "../core/ports.js";
import type { Clock } from "../core/random.js";
import type { EventRecord, RedriveEntry } from "../core/record.js";
import { mayRedrive } from "../core/redrive-rule.js";
import { EventStatus } from "../core/status.js";
import {
  DEFAULT_SCAN_VISIBILITY_SECONDS,
  type DeadLetterFilter,
  releaseAll,
  type ScannedMessage,
  scanDeadLetters,
} from "./dead-letter-scan.js";
import {
  DEFAULT_EXTRA_ATTEMPTS,
  parseRedriveRequest,
  type RedriveRequest,
  type RedriveRequestInput,
} from "./redrive-request.js";

/*
 * Redrive: dead-letter queue → ingress queue, with an audit entry on the record.
 *
 * Order of the three steps, per message, and why nothing is lost or delivered twice if the
 * process dies between any two of them:
 *
 *   1. SEND the envelope to the ingress queue, carrying generation g+1 (g = record's generation).
 *   2. RECORD the redrive (conditional on the record still being terminal at generation g):
 *      the record moves to `pending` at g+1 with the new budget and the audit entry.
 *   3. DELETE the dead-letter copy.
 *
 * - Killed after 1: the record is still terminal at g, the DLQ copy is still there. The sent
 *   message is "ahead" of the record, so the orchestrator does not act on it (it waits, and the
 *   queue's native maxReceiveCount eventually parks it). The next redrive sends another g+1 copy
 *   and records g+1: both copies now carry the generation the record names, and the
 *   orchestrator's claim lets only one of them attempt at a time; once an attempt finishes, the
 *   record moves on (terminal, or g+2 for a retry) and the other copy is a duplicate or stale.
 *   At most one generation is ever live.
 * - Killed after 2: the record is live (not terminal) at g+1 and a message for it exists (sent
 *   in step 1, before the record said so). The next redrive reads the record, sees it has moved
 *   past the dead-letter copy's generation, and only deletes that copy ("already redriven").
 * - recordRedrive answers `conflict` (the record changed between our read and our write: a
 *   concurrent or interrupted run recorded this generation or a later one): if the record is at
 *   g+1 or beyond, some run sent a message for it before recording, so the event is live; the
 *   copy we just sent carries a generation the record has reached or passed, which the
 *   generation check turns into a duplicate or a stale message. The DLQ copy is then done with:
 *   delete it. If the record is anything else, leave the DLQ copy and report a failure.
 *
 * The DLQ copy is only ever deleted once a record at a later generation exists, i.e. once a
 * live message for the event was sent; that is why a redrive can never lose an event.
 */

/** What redrive needs. `sleep` and `clock` are injected so rate limiting is testable. */
export interface RedriveDeps {
  readonly deadLetterQueue: DeadLetterQueue;
  readonly ingressQueue: IngressQueue;
  readonly store: EventStore;
  readonly clock: Clock;
  readonly sleep: (ms: number) => Promise<void>;
  /** The deployment's policy, for `resetAttempts` (an envelope's override wins). */
  readonly defaultPolicy: RetryPolicy;
  /** The deployment's bounds on an envelope's override; default {@link DEFAULT_POLICY_LIMITS}. */
  readonly policyLimits?: PolicyLimits | undefined;
  /** How long scanned messages stay hidden if the run dies before giving them back. */
  readonly scanVisibilitySeconds?: number;
  /** Asked before each move; true stops the run (a Lambda near its deadline). */
  readonly shouldStop?: () => boolean;
  /** Progress for displays: `phase` scan counts messages seen, move counts messages handled. */
  readonly onProgress?: (progress: RedriveProgress) => void;
  /**
   * Who AWS says runs the redrive, for the audit entries' `caller`; asked once, on the first
   * move. Never taken from the request: a request is the invoker's word, not AWS's. Without it,
   * entries have no `caller`.
   */
  readonly callerIdentity?: CallerIdentity | undefined;
}

export interface RedriveProgress {
  readonly phase: "scan" | "move";
  readonly done: number;
  readonly total?: number | undefined;
}

export interface MovedEvent {
  readonly eventId: string;
  /** The generation the redriven message carries. */
  readonly generation: number;
  /** Attempts allowed in total after the redrive. */
  readonly attemptBudget: number;
}

export interface SkippedMessage {
  readonly eventId?: string | undefined;
  readonly messageId: string;
  readonly reason: string;
}

export interface FailedMessage {
  readonly eventId?: string | undefined;
  readonly messageId: string;
  readonly error: string;
}

/** What a redrive did (or, with `dryRun`, would do). */
export interface RedriveReport {
  readonly dryRun: boolean;
  readonly moved: MovedEvent[];
  readonly skipped: SkippedMessage[];
  readonly failed: FailedMessage[];
}

/** Reasons a message is skipped, as they appear in the report. */
export const SkipReason = {
  DUPLICATE: "duplicate",
  ALREADY_REDRIVEN: "already redriven",
  INVALID_ENVELOPE_NOW_VALID:
    "invalid_envelope: the original body is valid now, but redrive cannot replay it; resubmit it",
  NOT_TERMINAL: "event is not terminal",
  STOPPED: "stopped before the run's deadline; run the redrive again",
  DELIVERED: "event was delivered; `ricochet dlq clean` removes the copy",
  CONFLICTING: "not the event's envelope: another body under its id, never attempted",
} as const;

/** Seconds selected messages stay hidden while a run moves them: the run's length, padded. */
const holdSeconds = (count: number, ratePerSecond: number): number =>
  Math.min(MAX_SQS_VISIBILITY_TIMEOUT_SECONDS, Math.ceil(count / ratePerSecond) + 60);

/** The budget a redrive grants. */
export const redriveBudget = (
  record: EventRecord,
  envelope: Envelope,
  request: Pick<RedriveRequest, "resetAttempts" | "extraAttempts">,
  defaultPolicy: RetryPolicy,
  limits: PolicyLimits = DEFAULT_POLICY_LIMITS,
): number => {
  if (request.resetAttempts === true) {
    // The same bounds as the orchestrator's: a reset never grants more than the ceiling.
    const { policy } = applyPolicyLimits(resolvePolicy(defaultPolicy, envelope.policy), limits);
    return record.attempts + policy.maxAttempts;
  }
  return record.attempts + (request.extraAttempts ?? DEFAULT_EXTRA_ATTEMPTS);
};

type Verdict =
  | { readonly kind: "move"; readonly record: EventRecord; readonly envelope: Envelope }
  | { readonly kind: "delete"; readonly reason: string }
  | { readonly kind: "skip"; readonly reason: string }
  | { readonly kind: "fail"; readonly error: string };

/** Reads a copy's body as the envelope to replay, or a reason not to. */
const envelopeOf = (
  dl: DeadLetterMessage,
): { ok: true; envelope: Envelope } | { ok: false; verdict: Verdict } => {
  const parsed = parseEnvelope(dl.body);
  if (dl.reason === "invalid_envelope") {
    return parsed.ok
      ? { ok: false, verdict: { kind: "skip", reason: SkipReason.INVALID_ENVELOPE_NOW_VALID } }
      : {
          ok: false,
          verdict: {
            kind: "fail",
            error: `invalid envelope: ${formatProblems(parsed.problems)}; resubmit a corrected one under the same id`,
          },
        };
  }
  if (!parsed.ok) {
    return {
      ok: false,
      verdict: {
        kind: "fail",
        error: `dead-lettered envelope is not valid: ${formatProblems(parsed.problems)}`,
      },
    };
  }
  return { ok: true, envelope: parsed.envelope };
};

/** Decides what to do with one dead-letter copy, reading the record (never writing). */
const judge = async (
  store: EventStore,
  dl: DeadLetterMessage,
  envelope: Envelope,
  nowMs: number,
): Promise<Verdict> => {
  const found = await store.get(envelope.eventId);
  if (found === undefined) {
    // The record expired (TTL) while the copy waited: the store recreates it from the redrive,
    // starting the count afresh. The copy's own summary stands in for the lost record.
    const at = dl.deadLetteredAt;
    const record: EventRecord = {
      eventId: envelope.eventId,
      status: dl.reason === "rejected" ? EventStatus.REJECTED : EventStatus.DEAD_LETTERED,
      generation: dl.generation,
      attempts: 0,
      attemptBudget: 0,
      history: [],
      redrives: [],
      createdAt: at,
      updatedAt: at,
    };
    return { kind: "move", record, envelope };
  }
  const record = found;
  // Only the envelope the event was accepted with is ever replayed: a copy with another body
  // under its id (a conflicting resubmission a crash loop parked here) was never the event.
  const digest = envelopeDigest(envelope);
  if (!sameEnvelope(record, digest)) {
    return {
      kind: "skip",
      reason: `${SkipReason.CONFLICTING} (accepted ${shortDigest(record.envelopeDigest ?? "")}, copy ${shortDigest(digest)})`,
    };
  }
  // The record moved past this copy: a redrive (ours, interrupted, or another's) already sent a
  // newer message. This copy is obsolete; see the reasoning at the top of the file.
  const movedOn = record.generation > dl.generation;
  if (record.status === EventStatus.DEAD_LETTERED || record.status === EventStatus.REJECTED) {
    return { kind: "move", record, envelope };
  }
  if (movedOn) return { kind: "delete", reason: SkipReason.ALREADY_REDRIVEN };
  if (record.status === EventStatus.DELIVERED)
    return { kind: "skip", reason: SkipReason.DELIVERED };
  // A parked raw message whose record is stranded at its generation: nothing else will move
  // the event on, so it is redriven like a dead-lettered one. A live lease is left alone.
  if (
    dl.reason === DeadLetterReason.UNPROCESSED &&
    mayRedrive(record, record.generation + 1, nowMs)
  ) {
    return { kind: "move", record, envelope };
  }
  return { kind: "skip", reason: `${SkipReason.NOT_TERMINAL} (${record.status})` };
};

/**
 * Moves dead-lettered events back to the ingress queue: selects messages by event id, reason
 * and age, grants a budget, sends first, records the redrive on the event's record, then
 * deletes the dead-letter copy. With `dryRun` it reads the same things and reports what it
 * would move, changing nothing. Messages it cannot replay stay in the queue and are reported.
 *
 * @throws InvalidRequestError when the request is invalid (nothing is touched).
 */
export const redrive = async (
  deps: RedriveDeps,
  input: RedriveRequestInput,
): Promise<RedriveReport> => {
  const request = parseRedriveRequest(input);
  const { deadLetterQueue: dlq, store, clock } = deps;
  const report: RedriveReport = { dryRun: request.dryRun, moved: [], skipped: [], failed: [] };
  const filter: DeadLetterFilter = {
    eventIds: request.eventIds,
    reasons: request.reasons,
    sinceMs: request.since === undefined ? undefined : Date.parse(request.since),
    untilMs: request.until === undefined ? undefined : Date.parse(request.until),
    targetKey: request.target,
  };

  const { matched, unmatched } = await scanDeadLetters(dlq, {
    filter,
    limit: request.limit,
    visibilitySeconds: deps.scanVisibilitySeconds ?? DEFAULT_SCAN_VISIBILITY_SECONDS,
    onPage: (scanned) => deps.onProgress?.({ phase: "scan", done: scanned }),
  });
  await releaseAll(dlq, unmatched);
  if (request.dryRun) {
    await releaseAll(dlq, matched);
  } else {
    const hold = holdSeconds(matched.length, request.ratePerSecond);
    await Promise.allSettled(
      matched.map((m) => dlq.changeVisibility(m.received.receiptHandle, hold)),
    );
  }

  // Event ids moved (or found already moved) in this run: later copies are duplicates.
  const handled = new Set<string>();
  const callerField = callerFieldOnce(deps.callerIdentity);
  const intervalMs = 1000 / request.ratePerSecond;
  const startedMs = clock();
  let moves = 0;

  const release = (m: ScannedMessage) =>
    request.dryRun ? Promise.resolve() : releaseAll(dlq, [m]);
  const remove = async (m: ScannedMessage): Promise<void> => {
    if (!request.dryRun) await dlq.delete(m.received.receiptHandle);
  };

  for (const [index, message] of matched.entries()) {
    deps.onProgress?.({ phase: "move", done: index, total: matched.length });
    const messageId = message.received.messageId;
    if (deps.shouldStop?.() === true) {
      report.skipped.push({ messageId, reason: SkipReason.STOPPED });
      await release(message);
      continue;
    }
    if (!message.parsed.ok) {
      report.failed.push({ messageId, error: message.parsed.error });
      await release(message);
      continue;
    }
    const dl = message.parsed.message;
    const eventId = dl.eventId;
    try {
      const read = envelopeOf(dl);
      const verdict: Verdict = !read.ok
        ? read.verdict
        : handled.has(read.envelope.eventId)
          ? { kind: "delete", reason: SkipReason.DUPLICATE }
          : await judge(store, dl, read.envelope, clock());

      if (verdict.kind === "fail") {
        report.failed.push({ eventId, messageId, error: verdict.error });
        await release(message);
        continue;
      }
      if (verdict.kind === "skip") {
        report.skipped.push({ eventId, messageId, reason: verdict.reason });
        await release(message);
        continue;
      }
      if (verdict.kind === "delete") {
        await remove(message);
        report.skipped.push({ eventId, messageId, reason: verdict.reason });
        continue;
      }

      const { record, envelope } = verdict;
      const generation = record.generation + 1;
      const attemptBudget = redriveBudget(
        record,
        envelope,
        request,
        deps.defaultPolicy,
        deps.policyLimits,
      );
      if (request.dryRun) {
        handled.add(envelope.eventId);
        report.moved.push({ eventId: envelope.eventId, generation, attemptBudget });
        continue;
      }

      const waitMs = startedMs + moves * intervalMs - clock();
      if (waitMs > 0) await deps.sleep(waitMs);
      moves += 1;

      // Asked before the clock is read, so `at` is when the move happened, not when STS was asked.
      const who = await callerField();
      const nowMs = clock();
      const audit: RedriveEntry = {
        at: new Date(nowMs).toISOString(),
        by: request.by,
        ...who,
        reason: request.why ?? `redrive of ${dl.reason}`,
        previousStatus: record.status,
        previousAttempts: record.attempts,
        attemptBudget,
      };
      // The producer's body as it arrived: re-serialising could change it (and grow it past
      // SQS's limit: `1e20` becomes 21 digits).
      await deps.ingressQueue.send(dl.body, { generation }, 0);
      const recorded = await store.recordRedrive({
        eventId: envelope.eventId,
        generation,
        attemptBudget,
        audit,
        nowMs,
      });
      if (recorded.kind === "conflict") {
        const now = recorded.record;
        if (now !== undefined && now.generation >= generation) {
          handled.add(envelope.eventId);
          await remove(message);
          report.skipped.push({ eventId, messageId, reason: SkipReason.ALREADY_REDRIVEN });
        } else {
          report.failed.push({
            eventId,
            messageId,
            error: `the record changed during the redrive (now ${now?.status ?? "missing"}); try again`,
          });
          await release(message);
        }
        continue;
      }
      handled.add(envelope.eventId);
      report.moved.push({ eventId: envelope.eventId, generation, attemptBudget });
      try {
        await dlq.delete(message.received.receiptHandle);
      } catch (error) {
        // Moved and recorded: the leftover copy is obsolete and the next redrive deletes it.
        report.failed.push({
          eventId,
          messageId,
          error: `moved, but the dead-letter copy was not deleted: ${errorMessage(error)}`,
        });
      }
    } catch (error) {
      report.failed.push({ eventId, messageId, error: errorMessage(error) });
      await release(message);
    }
  }
  deps.onProgress?.({ phase: "move", done: matched.length, total: matched.length });
  return report;
};
