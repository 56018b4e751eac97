import type { LimitVerdict } from "./target-limits.js";

/*
 * The adaptive limit's rate held as a token bucket of one second's calls, on top of the aligned
 * second's count. The adaptive limit (issue #35) is one instance's and kept in memory, so it can
 * afford what the shared counter of the declared limits cannot: a bucket per target.
 *
 * Why: counted per aligned second only, a limit of R calls/s lets R calls go at the end of one
 * second and R more at the start of the next, 2R in a few milliseconds. SQS hands deferred events
 * back in whole seconds and in batches, so such clumps are the common case, not the corner. A
 * partner whose quota is a token bucket of one second's tokens (as most published quotas are)
 * refuses the second R: in the rate-limited bench, single seconds of 41 calls at a limit of 22
 * gave 19 of a run's 65 429s. A bucket of R tokens refilled at R/s would never send more than such
 * a partner admits; this one refills in {@link REFILL_MS}, a little faster, for the reason there.
 * The aligned count still holds the rate to R a second over any longer stretch.
 */

/**
 * The time a bucket takes to refill, a little under a second. Events deferred by a second come
 * back a second after the calls they gave way to, give or take the poller's and the clock's few
 * milliseconds; refilled over exactly a second, a bucket those calls emptied holds a hair less
 * than R tokens when they come back, and one call in R is deferred a second more for nothing (a
 * partner taking 5 calls/s got 3 in some seconds). The most this lets through beyond a token
 * bucket of R is one twentieth of R a second.
 */
export const REFILL_MS = 950;

/** The tokens left at `atMs`; at most one second's worth of the rate they were counted for. */
export interface CallTokens {
  readonly tokens: number;
  readonly atMs: number;
  /** The rate they were counted for; unset: emptied by a refusal, at whatever rate comes next. */
  readonly perSecond?: number | undefined;
}

/** What the bucket says of one more call at `nowMs`, and the bucket after it. */
export interface TokensVerdict {
  readonly verdict: LimitVerdict;
  readonly tokens: CallTokens;
}

/** The tokens at `nowMs`: refilled since, and grown or spilled to a rate that changed. */
const tokensAt = (bucket: CallTokens | undefined, nowMs: number, perSecond: number): number => {
  if (bucket === undefined) return perSecond;
  const elapsedMs = Math.max(0, nowMs - bucket.atMs);
  const grown = bucket.perSecond === undefined ? 0 : Math.max(0, perSecond - bucket.perSecond);
  return Math.min(perSecond, bucket.tokens + grown + (elapsedMs / REFILL_MS) * perSecond);
};

/**
 * One more call at `nowMs` against `perSecond` calls/s: called if a whole token is there, else
 * deferred to when one will be. A bucket not yet used starts full, as the partner's does. A rate
 * raised adds its rise at once, as the aligned count allows it at once; a rate cut spills the
 * tokens above it. A clock stepped back refills nothing.
 */
export const tokensVerdict = (
  bucket: CallTokens | undefined,
  nowMs: number,
  perSecond: number,
): TokensVerdict => {
  const tokens = tokensAt(bucket, nowMs, perSecond);
  const atMs = bucket === undefined ? nowMs : Math.max(nowMs, bucket.atMs);
  if (tokens >= 1)
    return { verdict: { verdict: "call" }, tokens: { tokens: tokens - 1, atMs, perSecond } };
  const untilMs = atMs + Math.ceil(((1 - tokens) / perSecond) * REFILL_MS);
  return { verdict: { verdict: "defer", untilMs }, tokens: { tokens, atMs, perSecond } };
};

/**
 * The bucket after the target refused a call with 429 at `nowMs`: empty. A quota that refuses
 * has no tokens left, and refills from now at its own rate; a bucket still holding a second's
 * tokens would send them all into it at once. In the rate-limited bench a cut at the first 429
 * left 20 tokens, and the 32 calls that went in the rest of that second drew 32 429s.
 */
export const emptiedTokens = (nowMs: number): CallTokens => ({ tokens: 0, atMs: nowMs });
