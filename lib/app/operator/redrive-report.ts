/* What a redrive reports, and how one message's outcome (a report row) joins the report. */

export interface MovedEvent {
  readonly eventId: string;
  /** The generation the redriven message carries. */
  readonly generation: number;
  /** Attempts allowed in total after the redrive. */
  readonly attemptBudget: number;
}

interface SkippedMessage {
  readonly eventId?: string | undefined;
  readonly messageId: string;
  readonly reason: string;
}

interface FailedMessage {
  readonly eventId?: string | undefined;
  readonly messageId: string;
  readonly error: string;
}

/** What a redrive did (or, with `dryRun`, would do). */
export interface RedriveReport {
  readonly dryRun: boolean;
  readonly moved: MovedEvent[];
  readonly skipped: SkippedMessage[];
  readonly failed: FailedMessage[];
}

/** Reasons a message is skipped, as they appear in the report. */
export const SkipReason = {
  DUPLICATE: "duplicate",
  ALREADY_REDRIVEN: "already redriven",
  INVALID_ENVELOPE_NOW_VALID:
    "invalid_envelope: the original body is valid now, but redrive cannot replay it; resubmit it",
  NOT_TERMINAL: "event is not terminal",
  STOPPED: "stopped before the run's deadline; run the redrive again",
  DELIVERED: "event was delivered; `ricochet dlq clean` removes the copy",
  CONFLICTING: "not the event's envelope: another body under its id, never attempted",
  /** Followed by why; `includeUnverified` (`--include-unverified`) moves such a copy anyway. */
  UNVERIFIED:
    "unverified (the event's record does not bear the copy out; include unverified copies to move it)",
} as const;

/**
 * What became of one dead-letter message. A move whose dead-letter copy could not be deleted
 * is still a move: `leftover` says why the copy stays (the next redrive deletes it).
 */
export type RedriveRow =
  | { readonly kind: "moved"; readonly event: MovedEvent; readonly leftover?: FailedMessage }
  | { readonly kind: "skipped"; readonly message: SkippedMessage }
  | { readonly kind: "failed"; readonly message: FailedMessage };

/** Adds one message's row to the report. */
export const addRow = (report: RedriveReport, row: RedriveRow): void => {
  switch (row.kind) {
    case "moved":
      report.moved.push(row.event);
      if (row.leftover !== undefined) report.failed.push(row.leftover);
      return;
    case "skipped":
      report.skipped.push(row.message);
      return;
    case "failed":
      report.failed.push(row.message);
      return;
  }
};
