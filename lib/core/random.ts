/**
 * Randomness and time are injected everywhere in the core so that tests, the simulation and
 * `ricochet policy explain --seed` are exact and replayable.
 */

/** Returns a float in [0, 1), like `Math.random`. */
export type RandomSource = () => number;

/** Returns the current time in epoch milliseconds, like `Date.now`. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
export const systemRandom: RandomSource = () => Math.random();

/**
 * A small, fast, seedable PRNG (mulberry32). Not cryptographic: it only spreads retries and makes
 * simulations replayable from a seed.
 */
export const seededRandom = (seed: number): RandomSource => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** A whole number drawn uniformly from `min` to `max`, both inclusive. */
export const randomInt = (random: RandomSource, min: number, max: number): number => {
  if (max <= min) return min;
  const span = max - min + 1;
  return min + Math.min(span - 1, Math.floor(random() * span));
};
