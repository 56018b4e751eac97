import {
  type AdaptiveLimit,
  type AdaptiveLimitSettings,
  allowance,
  next,
  startingLimit,
} from "../../lib/core/adaptive-limit.js";
import type { AttemptResult } from "../../lib/core/outcome.js";
import type { RandomSource } from "../../lib/core/random.js";

/*
 * Partners in virtual time for the adaptive limit's tests: each answers a call started at a
 * given instant, and `driveLimit` calls one as fast as the limit allows, with an endless backlog,
 * feeding each answer back when the call ends (so the controller learns late, as it will live).
 */

/** A target in virtual time: the answer to a call started at `atMs`. */
export type Partner = (atMs: number) => AttemptResult;

/** How a {@link rateLimitedPartner} behaves. */
export interface RateLimitedPartnerOptions {
  /** Calls/s it admits: a number, or one per instant (a limit that changes mid-run). */
  readonly capacityPerSecond: number | ((atMs: number) => number);
  /** Tokens the bucket holds at most; default one second's worth. */
  readonly burst?: number;
  readonly latencyMs?: number;
  /** Sent with each 429; default "1", the least whole seconds can say. */
  readonly retryAfter?: string | undefined;
}

/**
 * A partner that admits `capacityPerSecond` calls a second (a token bucket, full at the start)
 * and answers 429 with `Retry-After` above it.
 */
export const rateLimitedPartner = (options: RateLimitedPartnerOptions): Partner => {
  const capacityAt =
    typeof options.capacityPerSecond === "number"
      ? () => options.capacityPerSecond as number
      : options.capacityPerSecond;
  const latencyMs = options.latencyMs ?? 50;
  const retryAfter = "retryAfter" in options ? options.retryAfter : "1";
  let tokens: number | undefined;
  let lastMs = 0;
  return (atMs) => {
    const capacity = capacityAt(atMs);
    const burst = options.burst ?? capacity;
    tokens = Math.min(
      burst,
      tokens === undefined ? burst : tokens + ((atMs - lastMs) * capacity) / 1_000,
    );
    lastMs = atMs;
    if (tokens >= 1) {
      tokens -= 1;
      return { kind: "response", statusCode: 200, durationMs: latencyMs };
    }
    return { kind: "response", statusCode: 429, retryAfter, durationMs: latencyMs };
  };
};

/**
 * A partner that answers a `share` of calls 429 (`Retry-After: 1`) at random, however few it is
 * sent, and `inner`'s answer to the rest: a WAF or a gateway shedding a little.
 */
export const randomlyRefusingPartner = (
  random: RandomSource,
  share: number,
  inner: Partner = () => ({ kind: "response", statusCode: 200, durationMs: 50 }),
): Partner => {
  return (atMs) =>
    random() < share
      ? { kind: "response", statusCode: 429, retryAfter: "1", durationMs: 50 }
      : inner(atMs);
};

/**
 * A partner that always answers 200, in `latencyMs` scaled by a noise factor from 0.5 to 1.5,
 * and one call in `spikeEvery` (on average) ten times slower: a GC pause, a cold start.
 */
export const healthyNoisyPartner =
  (random: RandomSource, latencyMs: number, spikeEvery = 50): Partner =>
  () => {
    const spike = random() < 1 / spikeEvery ? 10 : 1;
    const durationMs = Math.round(latencyMs * (0.5 + random()) * spike);
    return { kind: "response", statusCode: 200, durationMs };
  };

/** One call the driver made. */
export interface DrivenCall {
  readonly atMs: number;
  readonly result: AttemptResult;
}

/** What a drive did: every call, and the limit at the end. */
export interface Drive {
  readonly calls: readonly DrivenCall[];
  readonly limit: AdaptiveLimit;
}

/** How a drive runs. */
export interface DriveOptions {
  readonly settings: AdaptiveLimitSettings;
  readonly startMs: number;
  readonly durationMs: number;
  /** The limit to start from; default {@link startingLimit}. */
  readonly start?: AdaptiveLimit;
  /** The timeout each call is given (what decides whether a timeout counts). */
  readonly timeoutMs?: number;
}

/**
 * Calls `partner` from `startMs` for `durationMs`, each call `1 / rate` after the one before at
 * the rate allowed when it starts (and never before a pause ends), and tells the limit each
 * answer at the call's end. Concurrency is not enforced: the partners here do not queue.
 */
export const driveLimit = (partner: Partner, options: DriveOptions): Drive => {
  const { settings, startMs, durationMs } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  let limit = options.start ?? startingLimit(startMs, settings);
  const calls: DrivenCall[] = [];
  const pending: { endMs: number; result: AttemptResult }[] = [];
  const learnUntil = (nowMs: number) => {
    pending.sort((a, b) => a.endMs - b.endMs);
    while (pending.length > 0 && (pending[0]?.endMs ?? Number.POSITIVE_INFINITY) <= nowMs) {
      const ended = pending.shift();
      if (ended === undefined) break;
      limit = next(
        limit,
        { kind: "call", call: { result: ended.result, timeoutMs } },
        ended.endMs,
        settings,
      );
    }
  };
  let atMs = startMs;
  while (atMs < startMs + durationMs) {
    learnUntil(atMs);
    const allowed = allowance(limit, atMs, settings);
    if (allowed.notBeforeMs !== undefined) {
      atMs = allowed.notBeforeMs;
      continue;
    }
    const result = partner(atMs);
    calls.push({ atMs, result });
    pending.push({ endMs: atMs + result.durationMs, result });
    atMs += 1_000 / allowed.callsPerSecond;
  }
  // Calls still in flight at the end are not learned from: the slowest of them would be the
  // last word, which says more about the drive stopping than about the partner.
  learnUntil(startMs + durationMs);
  return { calls, limit };
};

/** Calls/s among `calls` from `fromMs` to `toMs` that `keep` selects. */
export const ratePerSecond = (
  calls: readonly DrivenCall[],
  fromMs: number,
  toMs: number,
  keep: (call: DrivenCall) => boolean = () => true,
): number =>
  (calls.filter((call) => call.atMs >= fromMs && call.atMs < toMs && keep(call)).length * 1_000) /
  (toMs - fromMs);

/** Whether the partner admitted the call. */
export const admitted = (call: DrivenCall): boolean =>
  call.result.kind === "response" && call.result.statusCode < 300;
