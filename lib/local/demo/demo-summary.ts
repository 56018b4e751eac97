import { EventStatus, isTerminal } from "../../core/status.js";
import type { DemoSnapshot } from "./demo-snapshot.js";

/** The scripted run's result: the one JSON object `--once --json` prints last. */
export interface DemoSummary {
  readonly submitted: number;
  readonly delivered: number;
  readonly rejected: number;
  readonly deadLettered: number;
  readonly redriven: number;
  readonly duplicatesSuppressed: number;
  /** Events neither terminal nor carried by a live message: must be 0. */
  readonly lost: number;
  /** Events not yet terminal (0 when the run completed). */
  readonly pending: number;
  /** The deliberately malformed submissions, recorded as rejected apart from the events above. */
  readonly malformed: number;
  readonly seconds: number;
}

export interface SummaryInput {
  readonly eventIds: readonly string[];
  readonly snapshot: DemoSnapshot;
  readonly redriven: number;
  readonly duplicatesSuppressed: number;
  readonly malformed: number;
  readonly seconds: number;
}

/**
 * Counts the demo's events by the status their records say. An event that is not terminal is only
 * accounted for while the ingress queue still holds a message that can move it; beyond the number
 * of live messages, each one is lost. At quiescence (no live message) every non-terminal event is.
 */
export const summarize = (input: SummaryInput): DemoSummary => {
  const count = { delivered: 0, rejected: 0, deadLettered: 0, pending: 0 };
  for (const eventId of input.eventIds) {
    const status = input.snapshot.records.get(eventId)?.status;
    if (status === EventStatus.DELIVERED) count.delivered++;
    else if (status === EventStatus.REJECTED) count.rejected++;
    else if (status === EventStatus.DEAD_LETTERED) count.deadLettered++;
    else if (status === undefined || !isTerminal(status)) count.pending++;
  }
  return {
    submitted: input.eventIds.length,
    delivered: count.delivered,
    rejected: count.rejected,
    deadLettered: count.deadLettered,
    redriven: input.redriven,
    duplicatesSuppressed: input.duplicatesSuppressed,
    lost: Math.max(0, count.pending - input.snapshot.liveMessages),
    pending: count.pending,
    malformed: input.malformed,
    seconds: Math.round(input.seconds * 10) / 10,
  };
};
