import { sameEnvelope } from "../../core/claim.js";
import type { DeadLetterMessage } from "../../core/dead-letter.js";
import { verifyDeadLetterCopy } from "../../core/dead-letter-verification.js";
import { DeadLetterReason } from "../../core/decide.js";
import { type Envelope, parseEnvelope } from "../../core/envelope.js";
import { envelopeDigest, shortDigest } from "../../core/envelope-digest.js";
import { formatProblems } from "../../core/errors.js";
import type { EventStore } from "../../core/ports.js";
import type { EventRecord } from "../../core/record.js";
import { mayRedrive } from "../../core/redrive-rule.js";
import { EventStatus } from "../../core/status.js";
import { SkipReason } from "./redrive-report.js";

/*
 * What a redrive does with one dead-letter copy, decided from the copy and the event's record
 * before anything is written: move it, delete it as obsolete, leave it (skip) or report it failed.
 * The reasoning behind each case is at the top of lib/app/operator/redrive.ts.
 */

/** What to do with one dead-letter copy. */
export type Verdict =
  | { readonly kind: "move"; readonly record: EventRecord; readonly envelope: Envelope }
  | { readonly kind: "delete"; readonly reason: string }
  | { readonly kind: "skip"; readonly reason: string }
  | { readonly kind: "fail"; readonly error: string };

/** Reads a copy's body as the envelope to replay, or a reason not to. */
export const envelopeOf = (
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

/**
 * A move, if the record bears the copy out or the operator included unverified copies; else a
 * skip that says why, so that a forged summary never moves an event unasked.
 */
const moveIfVerified = (
  dl: DeadLetterMessage,
  found: EventRecord | undefined,
  includeUnverified: boolean,
  move: Extract<Verdict, { kind: "move" }>,
): Verdict => {
  const verification = verifyDeadLetterCopy(dl, found);
  if (verification.verified || includeUnverified) return move;
  return { kind: "skip", reason: `${SkipReason.UNVERIFIED}: ${verification.why}` };
};

/** How a copy is judged: at what time, and whether a copy the record cannot bear out may move. */
interface CopyJudging {
  readonly nowMs: number;
  readonly includeUnverified?: boolean | undefined;
}

/** Decides what to do with one dead-letter copy, reading the record (never writing). */
export const judgeCopy = async (
  store: EventStore,
  dl: DeadLetterMessage,
  envelope: Envelope,
  { nowMs, includeUnverified = false }: CopyJudging,
): Promise<Verdict> => {
  const found = await store.get(envelope.eventId);
  if (found === undefined) {
    // The record expired (TTL) while the copy waited: the store recreates it from the redrive,
    // starting the count afresh. The copy's own summary stands in for the lost record, which is
    // why only an operator who includes unverified copies moves it.
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
    return moveIfVerified(dl, found, includeUnverified, { kind: "move", record, envelope });
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
  const move = { kind: "move", record, envelope } as const;
  // The record moved past this copy: a redrive (ours, interrupted, or another's) already sent a
  // newer message. This copy is obsolete; see the reasoning atop lib/app/operator/redrive.ts.
  const movedOn = record.generation > dl.generation;
  if (record.status === EventStatus.DEAD_LETTERED || record.status === EventStatus.REJECTED) {
    return moveIfVerified(dl, found, includeUnverified, move);
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
    return moveIfVerified(dl, found, includeUnverified, move);
  }
  return { kind: "skip", reason: `${SkipReason.NOT_TERMINAL} (${record.status})` };
};
