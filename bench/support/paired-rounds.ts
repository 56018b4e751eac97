/**
 * Rounds of a scenario whose contenders run one after another against fresh partners: each
 * round's order rotated one place, and figures compared round by round (the rate-limited and
 * saturating scenarios). A round's figures share its machine load, so a per-round ratio is the
 * sharper answer to "which did better in the same run".
 */

import { type NoiseBand, noiseBand } from "./noise-band.js";

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/**
 * `list` rotated `shift` places, as the other scenarios rotate their rounds: drift and
 * after-effects fall on each contender in turn.
 */
export const rotated = <T>(list: readonly T[], shift: number): T[] => {
  const n = list.length;
  const by = n === 0 ? 0 : ((shift % n) + n) % n;
  return [...list.slice(by), ...list.slice(0, by)];
};

/** The median to three decimals; null for none. */
export const median3 = (values: readonly number[]): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const value =
    sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return value === undefined ? null : round3(value);
};

/** The mean to three decimals of the known values; null when none is known. */
export const mean3 = (values: readonly (number | null)[]): number | null => {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : round3(known.reduce((a, b) => a + b, 0) / known.length);
};

/** Per-round ratios a ÷ b of one figure, rounds paired by index; rounds with a zero or null dropped. */
export const roundRatios = <F>(
  a: readonly F[],
  b: readonly F[],
  pick: (f: F) => number | null,
): number[] =>
  a.flatMap((fa, i) => {
    const fb = b[i];
    const x = pick(fa);
    const y = fb === undefined ? null : pick(fb);
    return x === null || y === null || y === 0 ? [] : [x / y];
  });

/** How far apart the same code measures in one run (bench/support/noise-band.ts). */
export type RatioBand = NoiseBand;

/**
 * The A/A band of an A/A pair's per-round ratios, made symmetric as the retries scenario's is:
 * which of the twins is divided by the other is arbitrary, so r and 1/r are the same noise.
 */
const ratioBand = (ratios: readonly number[]): RatioBand | null => {
  const band = noiseBand(
    ratios.length === 0 ? null : { median: 0, min: Math.min(...ratios), max: Math.max(...ratios) },
  );
  return band === null ? null : { low: round3(band.low), high: round3(band.high) };
};

/** Per named figure: the median per-round ratio a ÷ b. */
export const medianRatios = <F, K extends string>(
  a: readonly F[],
  b: readonly F[],
  figures: Readonly<Record<K, (f: F) => number | null>>,
): Record<K, number | null> => {
  const out = {} as Record<K, number | null>;
  for (const key of Object.keys(figures) as K[]) {
    out[key] = median3(roundRatios(a, b, figures[key]));
  }
  return out;
};

/** Per named figure: the A/A band of twin ÷ original. */
export const ratioBands = <F, K extends string>(
  twin: readonly F[],
  original: readonly F[],
  figures: Readonly<Record<K, (f: F) => number | null>>,
): Record<K, RatioBand | null> => {
  const out = {} as Record<K, RatioBand | null>;
  for (const key of Object.keys(figures) as K[]) {
    out[key] = ratioBand(roundRatios(twin, original, figures[key]));
  }
  return out;
};

/** Refuses a round count that would not give every contender every place equally often. */
export const checkRounds = (scenario: string, rounds: number, contenders: number): void => {
  if (!Number.isInteger(rounds) || rounds % contenders !== 0) {
    throw new Error(
      `${scenario} rounds must be a multiple of ${contenders}, so that each contender takes every place equally often; got ${rounds}`,
    );
  }
};

/** Every round's order, and each contender's observations in round order. */
export interface RotatedRuns<O> {
  /** The run made before the rounds and counted nowhere, when one was asked for. */
  readonly warmUp?: { readonly run: string; readonly contender: string } | undefined;
  readonly order: readonly { readonly run: string; readonly contenders: readonly string[] }[];
  readonly runs: ReadonlyMap<string, readonly O[]>;
}

/**
 * Runs `rounds` rounds of every contender in turn, each round rotated one place. With
 * `warmUpLabel`, round 0's first contender runs once more before them, under that label, and its
 * figures are dropped: the first run of a process pays for its JIT, its connections and the
 * emulators' first tables, and in the saturating scenario that run's neighbour p99 (646 ms
 * against 64–77 for every other round) alone set the subject's pooled p99 and the A/A band.
 * One warm-up does not absorb it all: with it, the next run was still the slowest (219 ms
 * against 62–80; docs/design-notes.md, "Adaptive per-target limits (#35)").
 */
export const runRotatedRounds = async <C extends { readonly name: string }, O>(options: {
  readonly contenders: readonly C[];
  readonly rounds: number;
  /** A round's label; event ids are prefixed with it, so rounds never share an id. */
  readonly labelOf: (round: number) => string;
  readonly warmUpLabel?: string | undefined;
  readonly runOnce: (contender: C, label: string) => Promise<O>;
  readonly describe: (contender: C, label: string, observation: O) => string;
  readonly progress: (line: string) => void;
}): Promise<RotatedRuns<O>> => {
  const order: { run: string; contenders: string[] }[] = [];
  const runs = new Map<string, O[]>();
  const first = options.contenders[0];
  const warmUp =
    options.warmUpLabel === undefined || first === undefined || options.rounds === 0
      ? undefined
      : { run: options.warmUpLabel, contender: first.name };
  if (warmUp !== undefined && first !== undefined) {
    const observation = await options.runOnce(first, warmUp.run);
    options.progress(`${options.describe(first, warmUp.run, observation)} (warm-up, not counted)`);
  }
  for (let round = 0; round < options.rounds; round += 1) {
    const inOrder = rotated(options.contenders, round);
    const label = options.labelOf(round);
    order.push({ run: label, contenders: inOrder.map((c) => c.name) });
    for (const contender of inOrder) {
      const observation = await options.runOnce(contender, label);
      runs.set(contender.name, [...(runs.get(contender.name) ?? []), observation]);
      options.progress(options.describe(contender, label, observation));
    }
  }
  return { ...(warmUp === undefined ? {} : { warmUp }), order, runs };
};
