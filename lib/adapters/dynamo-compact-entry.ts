import type { OutcomeClass } from "../core/outcome.js";
import type { AttemptEntry } from "../core/record.js";
import { isoOf } from "../core/time-format.js";

/*
 * DynamoDB bills a write one unit per KB of the larger of the item before and after it, names
 * included. A history entry stored with the record's own field names and ISO times took ~230
 * bytes, so an event's third attempt pushed its record past 1 KB and every later claim and
 * result cost two units (docs/benchmark-history.md, "Re-measured after the internal queue"). Entries are
 * therefore stored under one-letter names with times as numbers: epoch ms for the claim, ms
 * after it for the send and the end (~100 bytes with the same facts). Items written before
 * hold the long form, and a history may mix both: every entry is read by its own shape.
 */

/** A history entry as stored. */
export interface CompactEntry {
  /** attempt */
  readonly n: number;
  /** worker */
  readonly w: string;
  /** claimedAt, epoch ms */
  readonly c: number;
  /** sentAt, ms after `c` */
  readonly s?: number;
  /** finishedAt, ms after `c` */
  readonly f: number;
  /** outcome, spelt out so that the console stays readable */
  readonly o: OutcomeClass;
  /** statusCode */
  readonly h?: number;
  /** errorCategory */
  readonly e?: string;
  /** message */
  readonly m: string;
  /** delaySeconds */
  readonly d?: number;
  /** noCall */
  readonly x?: true;
  /** traceId: 32 hex digits, stored only when the attempt's message carried a trace context */
  readonly t?: string;
}

/** The in-flight attempt as stored: who claimed it and when (epoch ms). */
export interface CompactCurrentAttempt {
  readonly w: string;
  readonly c: number;
}

/** Only keys with a value: the document client is told to drop undefined, this says so here. */
const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

/**
 * Stores an entry in the compact form; one whose claim time is not a date (never, with the
 * store's own times) is kept in the long form rather than lost.
 */
export const compactEntry = (entry: AttemptEntry): CompactEntry | AttemptEntry => {
  const claimedMs = Date.parse(entry.claimedAt);
  if (Number.isNaN(claimedMs)) return entry;
  const after = (at: string | undefined): number | undefined =>
    at === undefined ? undefined : Date.parse(at) - claimedMs;
  return defined({
    n: entry.attempt,
    w: entry.worker,
    c: claimedMs,
    s: after(entry.sentAt),
    f: after(entry.finishedAt) ?? 0,
    o: entry.outcome,
    h: entry.statusCode,
    e: entry.errorCategory,
    m: entry.message,
    d: entry.delaySeconds,
    x: entry.noCall,
    t: entry.traceId,
  });
};

const isCompact = (item: Record<string, unknown>): boolean =>
  typeof item.n === "number" && typeof item.c === "number";

const fromCompact = (item: CompactEntry): AttemptEntry =>
  defined({
    attempt: item.n,
    worker: item.w,
    claimedAt: isoOf(item.c),
    sentAt: item.s === undefined ? undefined : isoOf(item.c + item.s),
    finishedAt: isoOf(item.c + item.f),
    outcome: item.o,
    statusCode: item.h,
    errorCategory: item.e,
    message: item.m,
    delaySeconds: item.d,
    noCall: item.x,
    traceId: item.t,
  });

/** Reads a stored entry, compact or in the long form older releases wrote. */
export const entryFromItem = (item: Record<string, unknown>): AttemptEntry =>
  isCompact(item)
    ? fromCompact(item as unknown as CompactEntry)
    : (item as unknown as AttemptEntry);

/** Stores the in-flight attempt in the compact form. */
export const compactCurrentAttempt = (
  worker: string,
  claimedMs: number,
): CompactCurrentAttempt => ({
  w: worker,
  c: claimedMs,
});

/** Reads the in-flight attempt's worker and claim time from either stored form. */
export const currentAttemptFromItem = (
  value: unknown,
): { readonly worker: string; readonly claimedAt: string } | undefined => {
  if (value === null || typeof value !== "object") return undefined;
  const stored = value as { w?: unknown; c?: unknown; worker?: unknown; claimedAt?: unknown };
  if (typeof stored.w === "string" && typeof stored.c === "number") {
    return { worker: stored.w, claimedAt: isoOf(stored.c) };
  }
  if (typeof stored.worker === "string" && typeof stored.claimedAt === "string") {
    return { worker: stored.worker, claimedAt: stored.claimedAt };
  }
  return undefined;
};
