import * as z from "zod";
import {
  DEAD_LETTER_KIND,
  DEAD_LETTER_VERSION,
  type DeadLetterMessage,
  type DeadLetterSummary,
} from "../../core/dead-letter.js";
import { verifyDeadLetterCopy } from "../../core/dead-letter-verification.js";
import { DeadLetterReason } from "../../core/decide.js";
import { parseEnvelope } from "../../core/envelope.js";
import { formatProblems, type InputProblem } from "../../core/errors.js";
import type { DeadLetterQueue, EventStore, ReceivedDeadLetter } from "../../core/ports.js";
import type { EventRecord } from "../../core/record.js";
import { naturalTargetKey } from "../../core/target-key.js";

/*
 * Reading the dead-letter queue without consuming it. SQS has no "peek": a scan receives with a
 * short visibility timeout, which hides each message for a few seconds, and gives every message
 * back (visibility 0) as soon as the scan is over. Used by `dlq list` and by redrive.
 */

/** How long a scanned message stays hidden if the scan dies before giving it back. */
export const DEFAULT_SCAN_VISIBILITY_SECONDS = 10;
/** A scan stops after this many messages whatever it found, so it always ends. */
const MAX_SCANNED_MESSAGES = 50_000;

const SummarySchema = z.looseObject({
  kind: z.literal(DEAD_LETTER_KIND),
  version: z.literal(DEAD_LETTER_VERSION),
  reason: z.enum(Object.values(DeadLetterReason) as [DeadLetterReason, ...DeadLetterReason[]]),
  eventId: z.string().optional(),
  targetKey: z.string().optional(),
  attempts: z.int().min(0),
  generation: z.int().min(0),
  deadLetteredAt: z.string(),
  // An invalid envelope's reasons: malformed ones are dropped, never the whole copy.
  problems: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .optional()
    .catch(undefined),
});

/** Copies written before the body travelled unchanged: the envelope re-serialised in a JSON body. */
const LegacyBodySchema = SummarySchema.extend({
  version: z.literal(1),
  envelope: z.unknown().optional(),
  rawBody: z.string().optional(),
});

/** A dead-letter copy read back, or why it could not be. */
export type DeadLetterParseResult =
  | { readonly ok: true; readonly message: DeadLetterMessage }
  | { readonly ok: false; readonly error: string };

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * Reads a copy Ricochet wrote: the summary attribute beside the producer's body, or an older
 * release's JSON body. Anything else (a native move, a stranger's message) is reported, never
 * thrown.
 */
export const parseDeadLetterCopy = (body: string, summary?: string): DeadLetterParseResult => {
  if (summary !== undefined) {
    const parsed = SummarySchema.safeParse(parseJson(summary));
    if (!parsed.success) return { ok: false, error: "unreadable Ricochet dead-letter summary" };
    return { ok: true, message: { ...(parsed.data as DeadLetterSummary), body } };
  }
  const value = parseJson(body);
  if (value === undefined) {
    return { ok: false, error: "not a Ricochet dead-letter message: body is not JSON" };
  }
  const legacy = LegacyBodySchema.safeParse(value);
  if (!legacy.success) return { ok: false, error: "not a Ricochet dead-letter message" };
  const { envelope, rawBody, ...rest } = legacy.data;
  return {
    ok: true,
    message: {
      ...(rest as unknown as DeadLetterSummary),
      version: DEAD_LETTER_VERSION,
      body: rawBody ?? JSON.stringify(envelope ?? null),
    },
  };
};

/** One message found by a scan, parsed when possible. */
export interface ScannedMessage {
  readonly received: ReceivedDeadLetter;
  readonly parsed: DeadLetterParseResult;
  /** When it was dead-lettered (epoch ms): the body's timestamp, else SQS's sent time. */
  readonly deadLetteredAtMs: number;
}

/** Which messages a scan keeps. Every field narrows; absent fields keep everything. */
export interface DeadLetterFilter {
  readonly eventIds?: readonly string[] | undefined;
  readonly reasons?: readonly DeadLetterReason[] | undefined;
  /** Epoch ms; dead-lettered at or after. */
  readonly sinceMs?: number | undefined;
  /** Epoch ms; dead-lettered strictly before. */
  readonly untilMs?: number | undefined;
  /**
   * Only copies of events to this target key: the key the copy names, or for a copy that names
   * none (written before keys were), its body's own key ({@link naturalTargetKey}).
   */
  readonly targetKey?: string | undefined;
}

/** The target key a copy names, or else its body's own key when the body is a valid envelope. */
const targetKeyOfCopy = (copy: DeadLetterMessage): string | undefined => {
  if (copy.targetKey !== undefined) return copy.targetKey;
  const parsed = parseEnvelope(copy.body);
  return parsed.ok ? naturalTargetKey(parsed.envelope.target) : undefined;
};

/**
 * Whether a scanned message passes the filter. An unreadable message has no event id or reason,
 * so it only passes a filter that asks for neither (then it is shown, so it is not forgotten).
 */
const matchesFilter = (message: ScannedMessage, filter: DeadLetterFilter): boolean => {
  if (filter.sinceMs !== undefined && message.deadLetteredAtMs < filter.sinceMs) return false;
  if (filter.untilMs !== undefined && message.deadLetteredAtMs >= filter.untilMs) return false;
  if (!message.parsed.ok)
    return (
      filter.eventIds === undefined &&
      filter.reasons === undefined &&
      filter.targetKey === undefined
    );
  const { eventId, reason } = message.parsed.message;
  if (
    filter.eventIds !== undefined &&
    (eventId === undefined || !filter.eventIds.includes(eventId))
  )
    return false;
  if (filter.reasons !== undefined && !filter.reasons.includes(reason)) return false;
  // Parsed last, and only when asked: it is the costliest test of a copy.
  if (
    filter.targetKey !== undefined &&
    targetKeyOfCopy(message.parsed.message) !== filter.targetKey
  )
    return false;
  return true;
};

/**
 * Reads a dead-letter body as Ricochet's, or else as a producer's envelope that the queue's
 * native redrive parked after repeated failures (reason `unprocessed`), so that a crash loop
 * can be redriven like any other dead-lettering. Anything else stays unreadable.
 */
export const readDeadLetter = (received: ReceivedDeadLetter): DeadLetterParseResult => {
  const parsed = parseDeadLetterCopy(received.body, received.summary);
  if (parsed.ok || received.summary !== undefined) return parsed;
  const raw = parseEnvelope(received.body);
  if (!raw.ok) return parsed;
  return {
    ok: true,
    message: {
      kind: DEAD_LETTER_KIND,
      version: DEAD_LETTER_VERSION,
      reason: DeadLetterReason.UNPROCESSED,
      eventId: raw.envelope.eventId,
      body: received.body,
      attempts: 0,
      generation: received.schedule.generation,
      deadLetteredAt: new Date(received.sentAtMs).toISOString(),
    },
  };
};

const toScanned = (received: ReceivedDeadLetter): ScannedMessage => {
  const parsed = readDeadLetter(received);
  const stamped = parsed.ok ? Date.parse(parsed.message.deadLetteredAt) : Number.NaN;
  return {
    received,
    parsed,
    deadLetteredAtMs: Number.isFinite(stamped) ? stamped : received.sentAtMs,
  };
};

export interface ScanOptions {
  readonly filter: DeadLetterFilter;
  /** Stop once this many matching messages were found. */
  readonly limit?: number | undefined;
  readonly visibilitySeconds?: number | undefined;
  /** Called after each receive, for progress displays. */
  readonly onPage?: ((scanned: number, matched: number) => void) | undefined;
}

export interface ScanResult {
  /** Matching messages, in the order found, each with its latest receipt handle. */
  readonly matched: ScannedMessage[];
  /** Every message received that did not match; still hidden, like the matches. */
  readonly unmatched: ScannedMessage[];
}

/**
 * Receives through the dead-letter queue and returns the matching messages. Every message
 * received is still hidden (for `visibilitySeconds`) when this returns: the caller decides
 * which to give back, with {@link releaseAll}. The scan ends when a receive comes back empty,
 * when a page holds only messages already seen (their visibility ran out: the queue has been
 * walked round), or when `limit` matches were found.
 */
export const scanDeadLetters = async (
  queue: DeadLetterQueue,
  options: ScanOptions,
): Promise<ScanResult> => {
  const visibilitySeconds = options.visibilitySeconds ?? DEFAULT_SCAN_VISIBILITY_SECONDS;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const byId = new Map<string, { scanned: ScannedMessage; matched: boolean }>();
  let matchedCount = 0;
  while (matchedCount < limit && byId.size < MAX_SCANNED_MESSAGES) {
    const page = await queue.receive({
      maxMessages: 10,
      visibilityTimeoutSeconds: visibilitySeconds,
      waitSeconds: 1,
    });
    if (page.length === 0) break;
    let fresh = 0;
    for (const received of page) {
      const known = byId.get(received.messageId);
      const scanned = toScanned(received);
      if (known !== undefined) {
        // Seen before: keep the newest receipt handle, the only one SQS promises to honour.
        byId.set(received.messageId, { ...known, scanned });
        continue;
      }
      fresh += 1;
      const matched = matchedCount < limit && matchesFilter(scanned, options.filter);
      if (matched) matchedCount += 1;
      byId.set(received.messageId, { scanned, matched });
    }
    options.onPage?.(byId.size, matchedCount);
    if (fresh === 0) break;
  }
  const entries = [...byId.values()];
  return {
    matched: entries.filter((e) => e.matched).map((e) => e.scanned),
    unmatched: entries.filter((e) => !e.matched).map((e) => e.scanned),
  };
};

/**
 * Makes messages visible again at once. Best effort: a handle that expired meanwhile is
 * visible already, so a failure here never loses a message.
 */
export const releaseAll = async (
  queue: DeadLetterQueue,
  messages: readonly ScannedMessage[],
): Promise<void> => {
  await Promise.allSettled(
    messages.map((m) => queue.changeVisibility(m.received.receiptHandle, 0)),
  );
};

/** A dead-letter message as an operator sees it in a listing. */
export interface DeadLetterListing {
  readonly messageId: string;
  readonly eventId?: string | undefined;
  readonly reason?: DeadLetterReason | undefined;
  readonly attempts?: number | undefined;
  readonly generation?: number | undefined;
  readonly deadLetteredAt: string;
  readonly receiveCount: number;
  readonly lastOutcome?: string | undefined;
  /** Why an `invalid_envelope` copy's body was refused, as the copy's summary says. */
  readonly problems?: readonly InputProblem[] | undefined;
  /** Why the body could not be read, for messages not written by Ricochet. */
  readonly error?: string | undefined;
  /**
   * Whether the event's record bears the copy's summary out ({@link verifyDeadLetterCopy}). An
   * unverified copy's reason, attempts and time are only what the message says; redrive leaves
   * it unless asked to include unverified copies.
   */
  readonly verified: boolean;
  /** Why the copy is unverified (absent when verified, and on unreadable messages). */
  readonly unverified?: string | undefined;
}

/**
 * What a listing says went wrong with the copy's event: its last outcome, or for an invalid
 * envelope the problems found in it. Producer text: the caller makes it inert where shown.
 */
export const listingDetail = (listing: DeadLetterListing): string | undefined =>
  listing.lastOutcome ??
  (listing.problems === undefined || listing.problems.length === 0
    ? undefined
    : formatProblems(listing.problems));

/** Reads each event's record once, however many copies name it. */
const recordReader = (
  store: Pick<EventStore, "get">,
): ((eventId: string) => Promise<EventRecord | undefined>) => {
  const records = new Map<string, Promise<EventRecord | undefined>>();
  return (eventId) => {
    let record = records.get(eventId);
    if (record === undefined) {
      record = store.get(eventId);
      records.set(eventId, record);
    }
    return record;
  };
};

/** A scanned message as listed, its summary checked against `record` (the event's, if any). */
export const toListing = (
  message: ScannedMessage,
  record: EventRecord | undefined,
): DeadLetterListing => {
  const base = {
    messageId: message.received.messageId,
    deadLetteredAt: new Date(message.deadLetteredAtMs).toISOString(),
    receiveCount: message.received.receiveCount,
  };
  if (!message.parsed.ok) return { ...base, error: message.parsed.error, verified: false };
  const dl = message.parsed.message;
  const verification = verifyDeadLetterCopy(dl, record);
  return {
    ...base,
    eventId: dl.eventId,
    reason: dl.reason,
    attempts: dl.attempts,
    generation: dl.generation,
    lastOutcome: dl.lastOutcome?.message,
    problems: dl.problems,
    verified: verification.verified,
    unverified: verification.verified ? undefined : verification.why,
  };
};

/**
 * Lists dead-letter messages without consuming them: scanned with a short visibility timeout
 * and all given back as soon as the scan ends. Each copy is checked against its event's record.
 */
export const listDeadLetters = async (
  queue: DeadLetterQueue,
  options: ScanOptions,
  store: Pick<EventStore, "get">,
): Promise<DeadLetterListing[]> => {
  const { matched, unmatched } = await scanDeadLetters(queue, options);
  await releaseAll(queue, [...matched, ...unmatched]);
  const read = recordReader(store);
  return Promise.all(
    matched.map(async (message) => {
      const eventId = message.parsed.ok ? message.parsed.message.eventId : undefined;
      return toListing(message, eventId === undefined ? undefined : await read(eventId));
    }),
  );
};
