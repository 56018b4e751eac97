import { parseDeadLetterCopy } from "../../lib/app/operator/dead-letter-scan.js";
import type { DeadLetterMessage } from "../../lib/core/dead-letter.js";
import { parseEnvelope } from "../../lib/core/envelope.js";
import type { EventRecord } from "../../lib/core/record.js";
import { isTerminal } from "../../lib/core/status.js";

/*
 * The end-of-run checks of guarantees 2 and 3 ("nothing accepted is lost", "stable identity")
 * that only need the final records and what is left on the two queues. The in-memory simulation
 * and the chaos run on the emulators both use them, so the two cannot disagree on what "lost"
 * means.
 */

/** A message left on a queue at the end of a run. */
export interface LeftMessage {
  readonly body: string;
  readonly schedule: { readonly generation: number };
  /** Ricochet's summary attribute, on the copies it dead-lettered. */
  readonly summary?: string | undefined;
}

/** What the checks read. */
export interface EndState {
  readonly eventIds: readonly string[];
  readonly records: ReadonlyMap<string, EventRecord>;
  readonly ingress: readonly LeftMessage[];
  readonly deadLetters: readonly LeftMessage[];
  /** The exact body each event was submitted with, where the run knows it. */
  readonly bodies?: ReadonlyMap<string, string>;
}

/** Which promise an end state breaks. */
export const EndStateProblem = {
  /** The event is not terminal (lost, unless a live message still moves it forward). */
  NOT_TERMINAL: "not_terminal",
  /** Rejected or dead-lettered, but no Ricochet dead-letter copy with that reason exists. */
  NO_DEAD_LETTER_COPY: "no_dead_letter_copy",
  /** A dead-letter copy names another event than its envelope. */
  COPY_IDENTITY: "copy_identity",
  /** A dead-letter copy's body is not, byte for byte, what the producer sent. */
  COPY_BODY: "copy_body",
  /** The record found under an id names another event. */
  RECORD_IDENTITY: "record_identity",
} as const;
export type EndStateProblem = (typeof EndStateProblem)[keyof typeof EndStateProblem];

export interface EndStateFinding {
  readonly problem: EndStateProblem;
  readonly eventId: string;
  readonly detail: string;
  /** Ingress messages still naming the event: they may still finish it. */
  readonly liveMessages: number;
}

/** Whether a message body is an envelope (or raw copy of one) for `eventId`. */
export const mentionsEvent = (message: LeftMessage, eventId: string): boolean =>
  message.body.includes(`"eventId":"${eventId}"`);

/** The Ricochet dead-letter copies among the dead-letter queue's messages (raw bodies skipped). */
export const deadLetterCopies = (messages: readonly LeftMessage[]): DeadLetterMessage[] =>
  messages
    .map((message) => parseDeadLetterCopy(message.body, message.summary))
    .flatMap((parsed) => (parsed.ok ? [parsed.message] : []));

/** Checks that every event ended terminal with its dead-letter copy, under a stable identity. */
export const checkEndState = (state: EndState): EndStateFinding[] => {
  const findings: EndStateFinding[] = [];
  const copies = deadLetterCopies(state.deadLetters);
  for (const copy of copies) {
    if (copy.reason === "invalid_envelope") continue;
    const read = parseEnvelope(copy.body);
    const envelopeId = read.ok ? read.envelope.eventId : undefined;
    const payload = read.ok ? (read.envelope.payload as { origin?: unknown } | null) : undefined;
    const origin = payload?.origin;
    if (envelopeId !== copy.eventId || (origin !== undefined && origin !== copy.eventId))
      findings.push({
        problem: EndStateProblem.COPY_IDENTITY,
        eventId: String(copy.eventId),
        detail: `dead-letter copy of ${copy.eventId} names ${envelopeId}`,
        liveMessages: 0,
      });
    const sent = copy.eventId === undefined ? undefined : state.bodies?.get(copy.eventId);
    if (sent !== undefined && copy.body !== sent)
      findings.push({
        problem: EndStateProblem.COPY_BODY,
        eventId: String(copy.eventId),
        detail: `dead-letter copy of ${copy.eventId}: ${copy.body.length} characters, not the ${sent.length} the producer sent`,
        liveMessages: 0,
      });
  }
  for (const id of state.eventIds) {
    const record = state.records.get(id);
    const live = state.ingress.filter((m) => mentionsEvent(m, id)).length;
    if (record === undefined || !isTerminal(record.status)) {
      // Raw ingress bodies the queue's native redrive moved after maxReceiveCount receives.
      const parked = state.deadLetters.filter(
        (m) => mentionsEvent(m, id) && !parseDeadLetterCopy(m.body, m.summary).ok,
      );
      const receives = parked.map((m) => `gen ${m.schedule.generation}`).join(", ");
      findings.push({
        problem: EndStateProblem.NOT_TERMINAL,
        eventId: id,
        liveMessages: live,
        detail:
          `${id}: ${record?.status ?? "no record"} (gen ${record?.generation ?? "-"}, ` +
          `attempts ${record?.attempts ?? 0}) at the end, ${live} live message(s), ` +
          `${parked.length} parked raw in the dead-letter queue${receives ? ` (${receives})` : ""}`,
      });
      continue;
    }
    if (record.eventId !== id)
      findings.push({
        problem: EndStateProblem.RECORD_IDENTITY,
        eventId: id,
        detail: `${id}: record is ${record.eventId}`,
        liveMessages: live,
      });
    // A cancelled event is finished by an operator's choice, audited on its record, never parked.
    if (
      record.status !== "delivered" &&
      record.status !== "cancelled" &&
      !copies.some((c) => c.eventId === id && c.reason === record.deadLetterReason)
    )
      findings.push({
        problem: EndStateProblem.NO_DEAD_LETTER_COPY,
        eventId: id,
        detail: `${id}: ${record.status} (${record.deadLetterReason}) without a dead-letter copy`,
        liveMessages: live,
      });
  }
  return findings;
};
