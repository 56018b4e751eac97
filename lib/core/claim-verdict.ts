import type { ClaimResult } from "./ports.js";
import type { EventRecord } from "./record.js";
import { isTerminal } from "./status.js";

/**
 * Why a claim was refused, read from the record that refused it. A claim is admitted exactly
 * when there is no record; or the message's generation matches and the event is waiting; or it
 * matches and the lease has expired. Every store implements that condition and explains a
 * refusal with this one function, so the verdicts cannot drift apart.
 */
export const explainRefusedClaim = (
  old: EventRecord,
  generation: number,
  nowMs: number,
): Exclude<ClaimResult, { kind: "claimed" }> => {
  if (isTerminal(old.status) && generation <= old.generation)
    return { kind: "finished", record: old };
  if (generation < old.generation) return { kind: "stale", record: old };
  if (generation > old.generation) return { kind: "ahead", record: old };
  // Same generation and in flight: someone holds the lease (the condition saw it live).
  return { kind: "lease_held", leaseExpiresAt: Math.max(old.leaseExpiresAt ?? nowMs, nowMs) };
};
