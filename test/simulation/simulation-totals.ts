import type { Violation } from "./invariants.js";
import type { SimulationResult } from "./simulation.js";

/** The figures of many runs added up, as `npm run simulate` prints them and the tests check them. */
export interface SimulationTotals {
  events: number;
  delivered: number;
  rejected: number;
  deadLettered: number;
  crashes: number;
  redriven: number;
  forged: number;
  conflicting: number;
  /** Forged copies sent to the dead-letter queue, and invalid envelopes with hostile key names. */
  forgedDeadLetters: number;
  hostileKeys: number;
  /** Dead-letter deletes through an outdated receipt handle (they deleted nothing). */
  staleDeadLetterDeletes: number;
  resultWriteFaults: number;
  bulky: number;
  deferred: number;
  scheduled: number;
  cancelled: number;
  cancelsRefusedInFlight: number;
  replayed: number;
  /** Cancels by the status they found the event in. */
  cancelledFrom: Record<string, number>;
  violations: Violation[];
}

export const noTotals = (): SimulationTotals => ({
  events: 0,
  delivered: 0,
  rejected: 0,
  deadLettered: 0,
  crashes: 0,
  redriven: 0,
  forged: 0,
  conflicting: 0,
  forgedDeadLetters: 0,
  hostileKeys: 0,
  staleDeadLetterDeletes: 0,
  resultWriteFaults: 0,
  bulky: 0,
  deferred: 0,
  scheduled: 0,
  cancelled: 0,
  cancelsRefusedInFlight: 0,
  replayed: 0,
  cancelledFrom: {},
  violations: [],
});

/** The figures a run reports under the same name as the totals. */
const SUMMED = [
  "events",
  "delivered",
  "rejected",
  "deadLettered",
  "crashes",
  "redriven",
  "resultWriteFaults",
  "bulky",
  "deferred",
  "scheduled",
  "cancelled",
  "cancelsRefusedInFlight",
  "replayed",
  "staleDeadLetterDeletes",
] as const satisfies readonly (keyof SimulationTotals & keyof SimulationResult)[];

/** Adds one run's figures to `totals`. */
export const addRun = (totals: SimulationTotals, result: SimulationResult): void => {
  for (const key of SUMMED) totals[key] += result[key];
  totals.forged += result.hostile.forged;
  totals.conflicting += result.hostile.conflicting;
  totals.forgedDeadLetters += result.hostile.forged_dead_letter;
  totals.hostileKeys += result.hostile.hostile_key;
  for (const [from, count] of Object.entries(result.cancelledFrom))
    totals.cancelledFrom[from] = (totals.cancelledFrom[from] ?? 0) + count;
  totals.violations.push(...result.violations);
};
