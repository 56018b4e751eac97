import { percentile } from "../support/schedule-error.js";

/** One call the partner answered: when it arrived (ms since epoch) and with which status. */
export interface PartnerCall {
  readonly eventId: string;
  readonly at: number;
  readonly status: number;
}

/** A stretch of the run during which the partner admits `rate` calls per second. */
export interface RatePhase {
  readonly name: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly rate: number;
}

/** Share of recovery counted as converged: goodput at or above this share of the new rate. */
const CONVERGED_SHARE = 0.9;

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/**
 * Goodput (200s per second) inside `phase`, as a share of the rate the partner admitted then:
 * 1 is every token used, less is capacity a contender left idle or burned on 429s.
 */
export const goodputShare = (calls: readonly PartnerCall[], phase: RatePhase): number => {
  const seconds = (phase.endMs - phase.startMs) / 1000;
  if (seconds <= 0 || phase.rate <= 0) return 0;
  const ok = calls.filter((c) => c.status === 200 && c.at >= phase.startMs && c.at < phase.endMs);
  return round3(ok.length / seconds / phase.rate);
};

/**
 * Whole seconds from the start of `phase` (the change of rate) to the first second from which
 * goodput stays at or above {@link CONVERGED_SHARE} of the new rate until the phase ends; null
 * when it never settles there. Seconds are counted from the change, so a partial last second is
 * left out: it cannot hold a full second's calls.
 */
export const reconvergeSeconds = (
  calls: readonly PartnerCall[],
  phase: RatePhase,
): number | null => {
  const seconds = Math.floor((phase.endMs - phase.startMs) / 1000);
  if (seconds <= 0) return null;
  const perSecond = Array.from({ length: seconds }, () => 0);
  for (const call of calls) {
    if (call.status !== 200 || call.at < phase.startMs) continue;
    const second = Math.floor((call.at - phase.startMs) / 1000);
    if (second < seconds) perSecond[second] = (perSecond[second] ?? 0) + 1;
  }
  const floor = CONVERGED_SHARE * phase.rate;
  let from: number | null = null;
  for (let s = seconds - 1; s >= 0; s -= 1) {
    if ((perSecond[s] ?? 0) < floor) break;
    from = s;
  }
  return from;
};

/** `count` per delivered event, three decimals; null when nothing was delivered. */
export const perDelivered = (count: number, delivered: number): number | null =>
  delivered === 0 ? null : round3(count / delivered);

/** Calls the partner refused with 429. */
export const refusals = (calls: readonly PartnerCall[]): number =>
  calls.filter((c) => c.status === 429).length;

/** p50 and p99 of submit-to-first-200, over the delivered events only. */
export const deliveryLatency = (
  submittedAt: ReadonlyMap<string, number>,
  deliveredAt: ReadonlyMap<string, number>,
): { readonly p50Ms: number | null; readonly p99Ms: number | null } => {
  const latencies: number[] = [];
  for (const [eventId, at] of deliveredAt) {
    const sent = submittedAt.get(eventId);
    if (sent !== undefined) latencies.push(at - sent);
  }
  return { p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
};
