import { MAX_SQS_VISIBILITY_TIMEOUT_SECONDS } from "../contract/aws-limits.js";
import { aheadVerdict } from "./ahead-message.js";
import type { ClaimResult } from "./ports.js";
import type { EventRecord } from "./record.js";
import { EventStatus } from "./status.js";

/*
 * What a claim's answer means for the message that asked for it. The orchestrator carries the
 * verdict out (counts, logs, the conflict's write, the visibility change); the meaning is here,
 * pure, so that every answer is pinned down by one table.
 */

/** The message being claimed for, as far as the verdict depends on it. */
export interface ClaimingMessage {
  /** The generation the message carries (0 for a producer's message). */
  readonly generation: number;
  readonly receiveCount: number;
}

/** What to do with a message once its claim has answered. */
export type ClaimVerdict =
  /** The event is ours: call the target. */
  | { readonly kind: "attempt"; readonly record: EventRecord; readonly takeover: boolean }
  /** An operator cancelled the event: delete the message without an attempt. */
  | { readonly kind: "drop"; readonly cause: "cancelled"; readonly record: EventRecord }
  /** The event already finished: a duplicate, deleted. */
  | { readonly kind: "drop"; readonly cause: "duplicate"; readonly record: EventRecord }
  /** An older generation than the record's: a stale copy, deleted. */
  | { readonly kind: "drop"; readonly cause: "stale" }
  /** A different envelope under the event's id: the first one wins, this one is deleted. */
  | { readonly kind: "drop"; readonly cause: "conflict"; readonly record: EventRecord }
  /** A copy ahead of its record that nothing will ever record: deleted. */
  | {
      readonly kind: "drop";
      readonly cause: "orphan";
      readonly record: EventRecord;
      readonly reason: string;
    }
  /**
   * Not now: hide the message for `visibilitySeconds` (within SQS's limit) and leave it on the
   * queue, because another worker holds the lease or the message is ahead of its record.
   */
  | {
      readonly kind: "retry_later";
      readonly cause: "lease_held" | "ahead";
      readonly visibilitySeconds: number;
      readonly reason: string;
    };

const visibleWithin = (seconds: number): number =>
  Math.min(seconds, MAX_SQS_VISIBILITY_TIMEOUT_SECONDS);

/** The verdict a claim's answer gives the message, judged at `nowMs`. */
export const claimVerdict = (
  claim: ClaimResult,
  message: ClaimingMessage,
  nowMs: number,
): ClaimVerdict => {
  switch (claim.kind) {
    case "claimed":
      return { kind: "attempt", record: claim.record, takeover: claim.takeover };
    case "finished":
      return claim.record.status === EventStatus.CANCELLED
        ? { kind: "drop", cause: "cancelled", record: claim.record }
        : { kind: "drop", cause: "duplicate", record: claim.record };
    case "stale":
      return { kind: "drop", cause: "stale" };
    case "conflict":
      return { kind: "drop", cause: "conflict", record: claim.record };
    case "lease_held": {
      // Back once the lease has ended, never sooner than a second (0 would make it visible now).
      const seconds = Math.max(1, Math.ceil((claim.leaseExpiresAt - nowMs) / 1000));
      return {
        kind: "retry_later",
        cause: "lease_held",
        visibilitySeconds: visibleWithin(seconds),
        reason: "lease held by another worker",
      };
    }
    case "ahead": {
      const ahead = aheadVerdict(claim.record, message.generation, message.receiveCount, nowMs);
      if (ahead.kind === "drop") {
        return { kind: "drop", cause: "orphan", record: claim.record, reason: ahead.reason };
      }
      return {
        kind: "retry_later",
        cause: "ahead",
        visibilitySeconds: visibleWithin(ahead.seconds),
        reason: "message ahead of its record",
      };
    }
  }
};
