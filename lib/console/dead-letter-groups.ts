import type { DeadLetterListing } from "../app/operator/dead-letter-scan.js";
import { redactCredentials } from "../core/redact.js";

/** Dead-lettered messages that share a reason, as the console lists them. */
export interface DeadLetterGroup {
  /** The copy's reason, or `unreadable` for a message Ricochet did not write. */
  readonly reason: string;
  readonly count: number;
  readonly oldest: string;
  readonly newest: string;
  readonly messages: readonly DeadLetterListing[];
}

/** The label of messages without a readable reason (not written by Ricochet). */
export const UNREADABLE_REASON = "unreadable";

/**
 * Groups a dead-letter listing by reason, largest group first (then by reason), each group's
 * messages oldest first; last outcomes and problems are passed through redactCredentials on the way out.
 */
export const groupDeadLetters = (listings: readonly DeadLetterListing[]): DeadLetterGroup[] => {
  const byReason = new Map<string, DeadLetterListing[]>();
  for (const listing of listings) {
    const reason = listing.reason ?? UNREADABLE_REASON;
    const shown = {
      ...listing,
      lastOutcome: listing.lastOutcome && redactCredentials(listing.lastOutcome),
      problems: listing.problems?.map((p) => ({ ...p, message: redactCredentials(p.message) })),
    };
    byReason.set(reason, [...(byReason.get(reason) ?? []), shown]);
  }
  return [...byReason.entries()]
    .map(([reason, messages]) => {
      const sorted = [...messages].sort((a, b) => a.deadLetteredAt.localeCompare(b.deadLetteredAt));
      return {
        reason,
        count: sorted.length,
        oldest: (sorted[0] as DeadLetterListing).deadLetteredAt,
        newest: (sorted[sorted.length - 1] as DeadLetterListing).deadLetteredAt,
        messages: sorted,
      };
    })
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
};
