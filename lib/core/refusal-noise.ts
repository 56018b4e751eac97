import { movingAverage } from "./moving-average.js";
import { RATE_WINDOW_MS, rateWindowOf } from "./target-limits.js";

/*
 * Whether a target's 429s are its load's doing or noise (issue #35). AIMD reads every refusal as
 * overload, so a partner that answers a share of calls 429 at random (a WAF, a gateway shedding a
 * little) was throttled to a crawl: 1 % of 429s held a 200 calls/s partner at 18.6 calls/s, 10 %
 * at 5.3. A quota's refusals are removed by fewer calls and a random one's are not, so the test
 * is aligned to the cuts: the share refused among the calls answered during a cut's lockout
 * (when a quota has just run dry) against the share among the calls sent in the window after it
 * (when the cut has had its effect). A quota refuses many in the lockout and few after; noise
 * refuses alike in both. The counts are pooled over the instances sharing the target (their
 * entries carry theirs, lib/core/learned-limits.ts): one instance's cut moves a shared quota's
 * refusals only by its part of the sum, so alone it cannot tell a shared quota from noise
 * (docs/design-notes.md, "Adaptive per-target limits (#35)").
 */

/** How refusals are told apart from overload. */
export interface RefusalNoiseSettings {
  /** Calls sent this long after a cut's lockout ends count in the "after" track. */
  readonly afterWindowMs: number;
  /**
   * The counts halve every this long (applied at each cut). By time, not by cut: a backlog's first
   * burst into a real quota holds thousands of calls, and a partner that later refuses only at
   * random cuts rarely, so counts decayed per cut kept that burst's verdict for minutes.
   */
  readonly halfLifeMs: number;
  /**
   * A noise is learned only while the rate allowed is below this share of the most calls the
   * target admitted in one second lately: random refusals cut a rate far below what the target
   * has shown it takes (5 % held a 200 calls/s partner at 9.5), a quota holds it near what it
   * admits. In the bench, a token bucket sent whole batches at once refused as much after a cut
   * as in its lockout, and was read as 11 % noise for seconds at a time.
   */
  readonly collapsedShare: number;
  /** The most admitted in one second halves every this long (applied at each cut). */
  readonly peakHalfLifeMs: number;
  /** Least calls in each track before either verdict. */
  readonly minCalls: number;
  /** Least refusals in each track before a noise is learned (a fall needs none after). */
  readonly minRefusals: number;
  /** A share of refusals above this is never noise: a target refusing that much is overloaded. */
  readonly maxNoiseShare: number;
  /** Tracks less than this many standard errors apart are alike: the refusals are noise. */
  readonly alikeWithinErrors: number;
  /** The lockout's share this many standard errors above the after's: the cuts removed refusals. */
  readonly fellByErrors: number;
  /** Weight of each call in the recent share of refusals (about 1 / calls averaged). */
  readonly recentWeight: number;
  /** A 429 is noise while the recent share stays under noise × this, plus `noiseMargin`. */
  readonly noiseFactor: number;
  /** See `noiseFactor`: the margin keeps a small noise from being crossed by two 429s together. */
  readonly noiseMargin: number;
}

/** The defaults, measured in docs/design-notes.md. */
export const DEFAULT_REFUSAL_NOISE_SETTINGS: RefusalNoiseSettings = {
  afterWindowMs: 2_000,
  halfLifeMs: 60_000,
  collapsedShare: 1 / 3,
  peakHalfLifeMs: 300_000,
  minCalls: 20,
  minRefusals: 2,
  maxNoiseShare: 0.12,
  alikeWithinErrors: 1.5,
  fellByErrors: 2,
  recentWeight: 0.005,
  noiseFactor: 1.5,
  noiseMargin: 0.02,
};

/** Calls and refusals counted around the cuts, decayed at each cut. */
export interface RefusalTracks {
  /** Calls answered during a cut's lockout (the refusal that made the cut not counted). */
  readonly lockoutCalls: number;
  readonly lockoutRefused: number;
  /** Calls sent in the {@link RefusalNoiseSettings.afterWindowMs} after a lockout ended. */
  readonly afterCalls: number;
  readonly afterRefused: number;
}

/** What one instance knows of a target's refusals. */
export interface RefusalNoise {
  readonly tracks: RefusalTracks;
  /** When the tracks were last decayed; unset: never. */
  readonly decayedAtMs?: number | undefined;
  /** The share of recent calls refused, averaged; unset before the first call. */
  readonly recentShare?: number | undefined;
  /** The share of calls the target refuses whatever it is sent, once learned; unset: none. */
  readonly noiseShare?: number | undefined;
  /** The aligned second calls not refused are counted in, and their count. */
  readonly secondStartMs?: number | undefined;
  readonly admittedInSecond?: number | undefined;
  /** Calls not refused in the aligned second before `secondStartMs` (0: none ended in it). */
  readonly admittedLastSecond?: number | undefined;
  /** The most calls not refused in one second, decayed; unset before the first second ends. */
  readonly peakAdmittedPerSecond?: number | undefined;
}

export const NO_TRACKS: RefusalTracks = {
  lockoutCalls: 0,
  lockoutRefused: 0,
  afterCalls: 0,
  afterRefused: 0,
};

export const NO_REFUSAL_NOISE: RefusalNoise = { tracks: NO_TRACKS };

/** One call that ended, placed against the last cut. */
export interface TrackedCall {
  readonly refused: boolean;
  readonly sentAtMs: number;
  readonly endedAtMs: number;
  /** When the rate was last cut; unset: never. */
  readonly lastCutAtMs: number | undefined;
  /** How long a cut holds off the next: the lockout. */
  readonly lockoutMs: number;
}

/** The track `call` counts in, if any: each call counts in at most one. */
const trackOf = (call: TrackedCall, settings: RefusalNoiseSettings) => {
  const cut = call.lastCutAtMs;
  if (cut === undefined) return undefined;
  const lockoutEnd = cut + call.lockoutMs;
  if (call.endedAtMs >= cut && call.endedAtMs < lockoutEnd) return "lockout";
  const sentAfter =
    call.sentAtMs >= lockoutEnd && call.sentAtMs < lockoutEnd + settings.afterWindowMs;
  return sentAfter ? "after" : undefined;
};

const added = (tracks: RefusalTracks, track: "lockout" | "after", refused: boolean) => {
  const one = refused ? 1 : 0;
  return track === "lockout"
    ? {
        ...tracks,
        lockoutCalls: tracks.lockoutCalls + 1,
        lockoutRefused: tracks.lockoutRefused + one,
      }
    : { ...tracks, afterCalls: tracks.afterCalls + 1, afterRefused: tracks.afterRefused + one };
};

/** The calls not refused counted into their aligned second; the peak raised as a second ends. */
const admitted = (noise: RefusalNoise, call: TrackedCall) => {
  const second = rateWindowOf(call.endedAtMs);
  const one = call.refused ? 0 : 1;
  const start = noise.secondStartMs;
  // A clock behind counts into the second held, as the rate counters do.
  if (start === undefined || second <= start)
    return {
      secondStartMs: start ?? second,
      admittedInSecond: (noise.admittedInSecond ?? 0) + one,
    };
  const ended = noise.admittedInSecond ?? 0;
  const peak = Math.max(noise.peakAdmittedPerSecond ?? 0, ended);
  const admittedLastSecond = second === start + RATE_WINDOW_MS ? ended : 0;
  return {
    secondStartMs: second,
    admittedInSecond: one,
    admittedLastSecond,
    peakAdmittedPerSecond: peak,
  };
};

/** The counts after a call that said something of the target (told before any cut it makes). */
export const tracked = (
  noise: RefusalNoise,
  call: TrackedCall,
  settings: RefusalNoiseSettings = DEFAULT_REFUSAL_NOISE_SETTINGS,
): RefusalNoise => {
  const track = trackOf(call, settings);
  const recentShare = movingAverage(noise.recentShare, call.refused ? 1 : 0, settings.recentWeight);
  return {
    ...noise,
    ...admitted(noise, call),
    tracks: track === undefined ? noise.tracks : added(noise.tracks, track, call.refused),
    recentShare,
  };
};

/** Two instances' tracks added up. */
export const summedTracks = (a: RefusalTracks, b: RefusalTracks): RefusalTracks => ({
  lockoutCalls: a.lockoutCalls + b.lockoutCalls,
  lockoutRefused: a.lockoutRefused + b.lockoutRefused,
  afterCalls: a.afterCalls + b.afterCalls,
  afterRefused: a.afterRefused + b.afterRefused,
});

/** Every count of `tracks` multiplied by `factor`. */
const scaledTracks = (tracks: RefusalTracks, factor: number): RefusalTracks => ({
  lockoutCalls: tracks.lockoutCalls * factor,
  lockoutRefused: tracks.lockoutRefused * factor,
  afterCalls: tracks.afterCalls * factor,
  afterRefused: tracks.afterRefused * factor,
});

/**
 * The noise share the pooled `tracks` say, from `known` (the one learned so far): the tracks'
 * share when they are alike and the rate has `collapsed` (see `collapsedShare`), unset when the
 * lockout refused clearly more (the cuts removed refusals: a quota), and `known` while the
 * counts are too few to say either.
 */
export const judgedNoise = (
  tracks: RefusalTracks,
  known: number | undefined,
  settings: RefusalNoiseSettings = DEFAULT_REFUSAL_NOISE_SETTINGS,
  collapsed = true,
): number | undefined => {
  const { lockoutCalls, lockoutRefused, afterCalls, afterRefused } = tracks;
  if (lockoutCalls < settings.minCalls || afterCalls < settings.minCalls) return known;
  const share = (lockoutRefused + afterRefused) / (lockoutCalls + afterCalls);
  const error = Math.sqrt(share * (1 - share) * (1 / lockoutCalls + 1 / afterCalls));
  const fall = lockoutRefused / lockoutCalls - afterRefused / afterCalls;
  if (fall >= settings.fellByErrors * error && fall > 0) return undefined;
  const enough = Math.min(lockoutRefused, afterRefused) >= settings.minRefusals;
  const alike = fall < settings.alikeWithinErrors * error;
  return collapsed && enough && alike && share <= settings.maxNoiseShare ? share : known;
};

/** The tracks and the peak decayed to `nowMs` for a new cut, and judged (see {@link judgedWith}). */
export const atCut = (
  noise: RefusalNoise,
  othersTracks: RefusalTracks | undefined,
  nowMs: number,
  ratePerSecond: number,
  settings: RefusalNoiseSettings = DEFAULT_REFUSAL_NOISE_SETTINGS,
): RefusalNoise => {
  const elapsedMs = Math.max(0, nowMs - (noise.decayedAtMs ?? nowMs));
  const peak = noise.peakAdmittedPerSecond;
  const decayed = {
    ...noise,
    tracks: scaledTracks(noise.tracks, 0.5 ** (elapsedMs / settings.halfLifeMs)),
    decayedAtMs: nowMs,
    ...(peak === undefined
      ? {}
      : { peakAdmittedPerSecond: peak * 0.5 ** (elapsedMs / settings.peakHalfLifeMs) }),
  };
  return judgedWith(decayed, othersTracks, ratePerSecond, settings);
};

/**
 * `noise` judged on its tracks pooled with the others', at the rate allowed now: a noise is
 * learned only while that rate has collapsed below `collapsedShare` of the peak admitted.
 */
export const judgedWith = (
  noise: RefusalNoise,
  othersTracks: RefusalTracks | undefined,
  ratePerSecond: number,
  settings: RefusalNoiseSettings = DEFAULT_REFUSAL_NOISE_SETTINGS,
): RefusalNoise => {
  const pooled =
    othersTracks === undefined ? noise.tracks : summedTracks(noise.tracks, othersTracks);
  const collapsed = ratePerSecond < settings.collapsedShare * (noise.peakAdmittedPerSecond ?? 0);
  const noiseShare = judgedNoise(pooled, noise.noiseShare, settings, collapsed);
  return { ...noise, noiseShare };
};

/** Whether a 429 now is the target's noise: a noise is learned and recent refusals are near it. */
export const isNoise = (
  noise: RefusalNoise,
  settings: RefusalNoiseSettings = DEFAULT_REFUSAL_NOISE_SETTINGS,
): boolean =>
  noise.noiseShare !== undefined &&
  (noise.recentShare ?? 0) <= noise.noiseShare * settings.noiseFactor + settings.noiseMargin;
