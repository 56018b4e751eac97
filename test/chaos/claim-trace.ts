import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/*
 * The claims chaos workers were granted, for the bounded-work check (takeovers earn re-runs).
 * Each worker appends a line per claim with a synchronous write before it calls the target, so a
 * SIGKILL can lose no line whose call happened: the kernel keeps what was written.
 */

/** One granted claim. */
export interface TracedClaim {
  readonly eventId: string;
  readonly attempt: number;
  readonly generation: number;
  /** Granted over a record in flight whose lease had expired. */
  readonly takeover: boolean;
}

/** Appends `claim` to a worker's trace file. */
export const traceClaim = (file: string, claim: TracedClaim): void => {
  appendFileSync(file, `${JSON.stringify(claim)}\n`);
};

/** The trace file of worker `workerId` in `directory`. */
export const claimTraceFile = (directory: string, workerId: string): string =>
  join(directory, `${workerId}.claims.jsonl`);

/** Takeovers per event id, over every worker's trace file in `directory`. */
export const readTakeovers = (directory: string): Map<string, number> => {
  const takeovers = new Map<string, number>();
  for (const name of readdirSync(directory).filter((n) => n.endsWith(".claims.jsonl"))) {
    for (const line of readFileSync(join(directory, name), "utf8").split("\n")) {
      // A line cut short by a SIGKILL mid-write is no claim the worker acted on.
      if (!line.endsWith("}")) continue;
      const claim = JSON.parse(line) as TracedClaim;
      if (claim.takeover) takeovers.set(claim.eventId, (takeovers.get(claim.eventId) ?? 0) + 1);
    }
  }
  return takeovers;
};
