import { type RandomSource, randomInt } from "./random.js";

/*
 * The pure arithmetic of the per-target limits. The rate limit counts calls per aligned
 * one-second window in one shared counter; the concurrency limit hands out `max` leased slots.
 * Where the counter and the slots live is the adapter's business.
 */

/** Length of the rate limit's counting window. */
export const RATE_WINDOW_MS = 1_000;

/** Start of the rate window `nowMs` falls in. */
export const rateWindowOf = (nowMs: number): number =>
  Math.floor(nowMs / RATE_WINDOW_MS) * RATE_WINDOW_MS;

/** Whether a call may start now, or when to ask again. */
export type LimitVerdict =
  | { readonly verdict: "call" }
  | { readonly verdict: "defer"; readonly untilMs: number };

/**
 * The verdict for the `count`-th call asked for in the window starting at `windowStartMs`
 * (the counter counts every request, turned away or not). The first `limit` are called; the
 * others are spread over the following windows at `limit` a second in the order they asked,
 * so a backlog comes back at the rate rather than all at the next window's start.
 */
export const rateVerdict = (windowStartMs: number, count: number, limit: number): LimitVerdict => {
  if (count <= limit) return { verdict: "call" };
  const over = count - limit - 1; // 0 for the first one turned away
  const windowsAhead = 1 + Math.floor(over / limit);
  const within = Math.floor(((over % limit) * RATE_WINDOW_MS) / limit);
  return { verdict: "defer", untilMs: windowStartMs + windowsAhead * RATE_WINDOW_MS + within };
};

/**
 * The largest share of a target's per-second limit one instance takes from the shared counter in
 * one write. The counter's item takes about 1,000 writes a second: counted one call at a time, a
 * target called 5,000 times a second would need 5,000.
 */
const MAX_RATE_BATCH_SHARE = 0.05;

/**
 * How many calls an instance asks the shared counter for at once: one more than it used recently
 * — the larger of its last window's calls and this window's so far — at most
 * {@link MAX_RATE_BATCH_SHARE} of the limit, at least one. A steady caller needs one write a
 * window; one that slows down wastes little of what it took; one that starts (a new instance, a
 * burst after a quiet spell) doubles its ask with each write, as TCP's slow start does, instead of
 * counting call by call: 100 instances starting at 5 000 calls/s cost about 700 writes in their
 * first second, not 5 000. Once the window is full it asks for one, so that the count still
 * orders the turned-away.
 */
export const rateBatchSize = (limit: number, usedRecently: number, windowFull: boolean): number =>
  windowFull
    ? 1
    : Math.max(1, Math.min(Math.floor(limit * MAX_RATE_BATCH_SHARE), usedRecently + 1));

/**
 * How many of the `asked` calls just counted fall within the limit, the counter now standing at
 * `count`: those counted in positions up to `limit`. Never more than the limit in one window,
 * whoever asks and in whatever batches.
 */
export const rateGranted = (count: number, asked: number, limit: number): number =>
  Math.max(0, Math.min(asked, limit - (count - asked)));

/** At most this many slots are tried per call: near the limit a call is deferred, not spun. */
export const SLOT_TRIES = 4;

/**
 * The slots to try, in order: distinct, starting at a random one so that instances do not all
 * queue on slot 0. All of them when there are at most {@link SLOT_TRIES}.
 */
export const slotsToTry = (maxConcurrentCalls: number, random: RandomSource): number[] => {
  const start = randomInt(random, 0, maxConcurrentCalls - 1);
  return Array.from(
    { length: Math.min(SLOT_TRIES, maxConcurrentCalls) },
    (_, i) => (start + i) % maxConcurrentCalls,
  );
};

/**
 * When a call turned away for want of a slot asks again: one to two seconds on (SQS delays are
 * whole seconds), spread so that the turned-away do not all return in the same instant.
 */
export const slotRetryAt = (nowMs: number, random: RandomSource): number =>
  nowMs + 1_000 + randomInt(random, 0, 999);
