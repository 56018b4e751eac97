import type { RefusalTracks } from "./refusal-noise.js";

/*
 * One instance's share of what all the instances holding a target back send it (issue #35,
 * "agreement across instances"). Each instance learns its own rate (lib/core/adaptive-limit.ts):
 * a cut by one factor on one overload cuts the instances' sum by it, but each of N instances
 * probing up by its own step of 1 call/s raises the sum by N calls/s a second, so ten instances
 * sharing a partner of 20 calls/s overshot it every few seconds (0.40 429s per delivery). Scaled
 * by its share, each instance's step adds up to the step one instance alone would take at the
 * sum: the instances behave as one flow, and agree on the target's pace.
 */

/** What the other instances holding a target back said of it, as last read. */
export interface OthersSeen {
  /** Their counts of the target's 429s around their cuts, summed (./refusal-noise.ts). */
  readonly refusals?: RefusalTracks | undefined;
  /** Their allowed rates, summed, calls/s. */
  readonly perSecond: number;
  /** How many of them there are. */
  readonly instances: number;
  readonly seenAtMs: number;
}

/** What was heard of the others, unless it is older than `maxAgeMs` (or far in the future). */
export const heardLately = (
  others: OthersSeen | undefined,
  nowMs: number,
  maxAgeMs: number,
): OthersSeen | undefined =>
  others !== undefined && Math.abs(nowMs - others.seenAtMs) <= maxAgeMs ? others : undefined;

/**
 * This instance's share of the target's summed rate, in (0, 1]: 1 when it knows of no other
 * instance, or what it knows is older than `maxAgeMs` (the others may have stopped), or when
 * neither sends anything.
 */
export const fleetShareOf = (
  ownPerSecond: number,
  others: OthersSeen | undefined,
  nowMs: number,
  maxAgeMs: number,
): number => {
  const heard = heardLately(others, nowMs, maxAgeMs);
  if (heard === undefined) return 1;
  // Never above 1: rates read back from the item are this code's, but a damaged one must not
  // make an instance probe harder than it would alone.
  const summed = ownPerSecond + Math.max(0, heard.perSecond);
  return summed > 0 && ownPerSecond > 0 ? ownPerSecond / summed : 1;
};
