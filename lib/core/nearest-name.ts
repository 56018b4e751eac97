import { closest, distance } from "fastest-levenshtein";
import type { InputProblem } from "./errors.js";
import { NOT_RECOGNIZED } from "./zod-problems.js";

/*
 * A misspelt setting must not pass silently, and the error should name what was meant:
 * `maxConcurency` is refused with "did you mean maxConcurrency?".
 */

/** The known name nearest to `name` by edit distance, when it is close enough to be a typo. */
export const nearestName = (name: string, known: readonly string[]): string | undefined => {
  if (known.length === 0) return undefined;
  const candidate = closest(name, [...known]);
  // A third of the name, at least two edits: `batchsize` and `maxConcurency` match, `foo` does not.
  const tolerated = Math.max(2, Math.floor(name.length / 3));
  return distance(name, candidate) <= tolerated ? candidate : undefined;
};

const unknownMessage = (name: string, known: readonly string[]): string => {
  const nearest = nearestName(name, known);
  return nearest === undefined ? NOT_RECOGNIZED : `${NOT_RECOGNIZED}; did you mean ${nearest}?`;
};

/** A problem for each of `given` that is not in `known`, at `prefix` + its name. */
export const unknownNameProblems = (
  given: readonly string[],
  known: readonly string[],
  prefix = "",
): InputProblem[] =>
  given
    .filter((name) => !known.includes(name))
    .map((name) => ({ path: `${prefix}${name}`, message: unknownMessage(name, known) }));

/**
 * `problems` with the nearest known name added to each unrecognized field directly at `prefix`
 * (the fields zod's strict objects refuse), so a schema's errors read like {@link unknownNameProblems}.
 */
export const withNearestNames = (
  problems: readonly InputProblem[],
  known: readonly string[],
  prefix = "",
): InputProblem[] =>
  problems.map((problem) => {
    const name = problem.path.slice(prefix.length);
    const direct = problem.path.startsWith(prefix) && !name.includes(".");
    return direct && problem.message === NOT_RECOGNIZED
      ? { ...problem, message: unknownMessage(name, known) }
      : problem;
  });
