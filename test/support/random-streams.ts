import { type RandomSource, seededRandom } from "../../lib/core/random.js";

/*
 * In a chaos run calls reach the receiver in whatever order the workers make them, and in the
 * simulation a change to one event's path shifts every later draw of a shared stream: a single
 * sequential PRNG would make an event's behaviour depend on scheduling. Each decision instead
 * gets its own stream, seeded from the run's seed and the decision's name: the same seed gives
 * every event the same script however the run interleaves.
 */

/** FNV-1a over the UTF-16 code units of `text`: small, fast, and stable across runs. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
};

/** A random stream for one named decision of the run with this seed. */
export const streamFor = (seed: number, ...name: readonly (string | number)[]): RandomSource =>
  seededRandom(fnv1a(`${seed}:${name.join(":")}`));

/** Picks one of `choices` with probability proportional to its weight. */
export const pickWeighted = <T>(
  random: RandomSource,
  choices: readonly (readonly [T, number])[],
): T => {
  const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
  let draw = random() * total;
  for (const [choice, weight] of choices) {
    draw -= weight;
    if (draw < 0) return choice;
  }
  const last = choices.at(-1);
  if (last === undefined) throw new RangeError("pickWeighted needs at least one choice");
  return last[0];
};
