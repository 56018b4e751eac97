import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AcknowledgedMessage } from "../support/guarantee-checks.js";

/*
 * What chaos workers did that the checks count on, one JSON line each, appended with a
 * synchronous write (the kernel keeps what was written, whatever SIGKILL follows): the claims
 * they were granted (written before the call: takeovers earn re-runs), the result writes that
 * landed (each ends one claim's run: the attempt-count check), and the messages they
 * acknowledged while the event had no record (the first-sight check).
 */

/** One granted claim. */
export interface TracedClaim {
  readonly eventId: string;
  readonly attempt: number;
  readonly generation: number;
  /** Granted over a record in flight whose lease had expired. */
  readonly takeover: boolean;
}

type TraceLine =
  | ({ readonly kind: "claim" } & TracedClaim)
  | { readonly kind: "asking" | "answered"; readonly eventId: string; readonly ask: number }
  | { readonly kind: "result"; readonly eventId: string }
  | { readonly kind: "unrecorded"; readonly eventId: string };

const append = (file: string, line: TraceLine): void => {
  appendFileSync(file, `${JSON.stringify(line)}\n`);
};

/** Appends `claim` to a worker's trace file. */
export const traceClaim = (file: string, claim: TracedClaim): void =>
  append(file, { kind: "claim", ...claim });

/**
 * Appends that a claim for `eventId` is about to be asked (`kind` "asking"), or that its answer
 * came back, whatever it was ("answered"). A claim asked but never answered is one a SIGKILL cut
 * short while its write was on the wire: DynamoDB may have applied it, counting an attempt that
 * no run of this worker will ever end, so the reader counts it as a claim.
 */
export const traceAsk = (
  file: string,
  kind: "asking" | "answered",
  eventId: string,
  ask: number,
): void => append(file, { kind, eventId, ask });

/** Appends a result write for `eventId` that landed. */
export const traceResult = (file: string, eventId: string): void =>
  append(file, { kind: "result", eventId });

/** Appends a message for `eventId` acknowledged while the event had no record. */
export const traceUnrecorded = (file: string, eventId: string): void =>
  append(file, { kind: "unrecorded", eventId });

/** The trace file of worker `workerId` in `directory`. */
export const claimTraceFile = (directory: string, workerId: string): string =>
  join(directory, `${workerId}.claims.jsonl`);

/** Every worker's trace, by event id. */
export interface ClaimTraces {
  readonly takeovers: Map<string, number>;
  readonly claims: Map<string, number>;
  readonly results: Map<string, number>;
  /** Only the messages acknowledged unrecorded: the others are not traced. */
  readonly acknowledged: AcknowledgedMessage[];
}

const bump = (counts: Map<string, number>, key: string): void => {
  counts.set(key, (counts.get(key) ?? 0) + 1);
};

/** Reads every worker's trace file in `directory`. */
export const readClaimTraces = (directory: string): ClaimTraces => {
  const traces: ClaimTraces = {
    takeovers: new Map(),
    claims: new Map(),
    results: new Map(),
    acknowledged: [],
  };
  for (const name of readdirSync(directory).filter((n) => n.endsWith(".claims.jsonl"))) {
    /** This worker's claims asked and not yet answered, by ask number. */
    const unanswered = new Map<number, string>();
    for (const text of readFileSync(join(directory, name), "utf8").split("\n")) {
      // A line cut short by a SIGKILL mid-write is nothing the worker acted on.
      if (!text.endsWith("}")) continue;
      const line = JSON.parse(text) as TraceLine;
      if (line.kind === "asking") unanswered.set(line.ask, line.eventId);
      else if (line.kind === "answered") unanswered.delete(line.ask);
      else if (line.kind === "claim") {
        bump(traces.claims, line.eventId);
        if (line.takeover) bump(traces.takeovers, line.eventId);
      } else if (line.kind === "result") bump(traces.results, line.eventId);
      else traces.acknowledged.push({ eventId: line.eventId, recorded: false });
    }
    for (const eventId of unanswered.values()) bump(traces.claims, eventId);
  }
  return traces;
};
