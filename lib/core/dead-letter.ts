import type { DeadLetterReason } from "./decide.js";
import { MAX_MESSAGE_BYTES, utf8Bytes } from "./envelope.js";
import type { InputProblem } from "./errors.js";
import type { Outcome } from "./outcome.js";

/** Marks a dead-letter summary as written by Ricochet (the native redrive moves raw bodies). */
export const DEAD_LETTER_KIND = "ricochet.dead_letter";
/** The dead-letter format this release writes: the producer's body, the summary beside it. */
export const DEAD_LETTER_VERSION = 2;

/**
 * What Ricochet says about a dead-lettered event, sent beside its body as one message attribute.
 * The summary fields never carry secrets (outcome messages are redacted when they are made).
 */
export interface DeadLetterSummary {
  readonly kind: typeof DEAD_LETTER_KIND;
  readonly version: typeof DEAD_LETTER_VERSION;
  readonly reason: DeadLetterReason;
  /** Present whenever an id could be read, even from an invalid envelope. */
  readonly eventId?: string | undefined;
  /**
   * The key the event's breaker and limits were kept under, declared groups applied (a scan
   * cannot tell them from the body alone). Absent on invalid envelopes and older copies.
   */
  readonly targetKey?: string | undefined;
  readonly problems?: readonly InputProblem[] | undefined;
  readonly attempts: number;
  readonly generation: number;
  readonly lastOutcome?: Outcome | undefined;
  readonly deadLetteredAt: string;
  /**
   * The body had to be cut to fit SQS's limit beside the summary. Only a body larger than any
   * valid envelope (itself an `invalid_envelope`) is ever cut: a valid envelope always fits whole.
   */
  readonly bodyTruncated?: boolean | undefined;
  /**
   * The producer's W3C trace context, so that a redrive stays in the producer's trace; read back
   * through `traceContextFrom`, which ignores anything malformed.
   */
  readonly traceparent?: string | undefined;
  readonly tracestate?: string | undefined;
}

/**
 * A dead-letter copy: the message body exactly as the producer sent it — never re-serialised,
 * so it cannot grow (`1e20` stays four characters) and a redrive replays the producer's bytes —
 * and Ricochet's summary.
 */
export interface DeadLetterMessage extends DeadLetterSummary {
  readonly body: string;
}

/**
 * Bytes kept for the summary attribute (its name, type and JSON). An envelope is at most SQS's
 * limit less `ENVELOPE_HEADROOM_BYTES` (8 KiB), so a valid body plus this always fits.
 */
export const MAX_SUMMARY_BYTES = 6 * 1024;
const SUMMARY_ATTRIBUTE_OVERHEAD_BYTES = 64;
const MAX_SUMMARY_TEXT_CHARS = 512;

/** The longest prefix of `text` within `maxBytes` of UTF-8 that does not split a character. */
export const cutToBytes = (text: string, maxBytes: number): string => {
  if (utf8Bytes(text) <= maxBytes) return text;
  let low = 0;
  let high = Math.min(text.length, maxBytes);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (utf8Bytes(text.slice(0, mid)) <= maxBytes) low = mid;
    else high = mid - 1;
  }
  // Never end on the first half of a surrogate pair: SQS refuses a lone surrogate.
  const last = text.charCodeAt(low - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, low - 1) : text.slice(0, low);
};

const cutText = (text: string): string =>
  text.length <= MAX_SUMMARY_TEXT_CHARS ? text : `${text.slice(0, MAX_SUMMARY_TEXT_CHARS)}…`;

/** The summary of a copy, bounded so that it always fits its share of the message. */
const summaryOf = (message: DeadLetterMessage): DeadLetterSummary => {
  const { body: _body, ...summary } = message;
  let bounded: DeadLetterSummary = {
    ...summary,
    problems: summary.problems?.map((p) => ({
      path: cutText(p.path),
      message: cutText(p.message),
    })),
    lastOutcome:
      summary.lastOutcome === undefined
        ? undefined
        : { ...summary.lastOutcome, message: cutText(summary.lastOutcome.message) },
  };
  // Problems are the only open-ended part: drop from the end until the summary fits.
  while (
    utf8Bytes(JSON.stringify(bounded)) > MAX_SUMMARY_BYTES &&
    (bounded.problems ?? []).length
  ) {
    bounded = { ...bounded, problems: bounded.problems?.slice(0, -1) };
  }
  return bounded;
};

/**
 * The copy as it is sent: summary bounded, and the body cut only if it cannot fit beside it
 * (which happens only to an oversize, hence invalid, body). The result always fits SQS's limit.
 */
export const fitDeadLetter = (
  message: DeadLetterMessage,
): { readonly summary: DeadLetterSummary; readonly body: string } => {
  const summary = summaryOf(message);
  const room =
    MAX_MESSAGE_BYTES - utf8Bytes(JSON.stringify(summary)) - SUMMARY_ATTRIBUTE_OVERHEAD_BYTES;
  const body = cutToBytes(message.body, room);
  return body === message.body
    ? { summary, body }
    : { summary: summaryOf({ ...message, bodyTruncated: true }), body };
};
