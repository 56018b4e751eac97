/*
 * The deferrals one instance made to a target and has not written yet, and when it writes them
 * (lib/app/orchestrator/target-breakers.ts). Pure values; the writes are the orchestrator's.
 */

/**
 * Deferrals are counted in memory and written with the item's next write, or on their own at
 * most this often per instance and target: an open breaker may turn away thousands of events a
 * second, and each of them must not cost a write.
 */
export const DEFERRAL_FLUSH_MS = 5_000;

/** Deferrals of one target this instance has not written yet. */
export interface PendingDeferrals {
  readonly count: number;
  /** When this instance last wrote the target's item (or first deferred to it). */
  readonly writtenAtMs: number;
}

/** The deferrals a write of the target's item takes along. */
export const pendingCount = (pending: PendingDeferrals | undefined): number => pending?.count ?? 0;

/**
 * One more deferral at `nowMs`, and whether the count is written on its own now: the first an
 * instance makes at once (so an outage shows up promptly), then only when nothing wrote the
 * item for {@link DEFERRAL_FLUSH_MS}.
 */
export const deferralCounted = (
  pending: PendingDeferrals | undefined,
  nowMs: number,
): { readonly pending: PendingDeferrals; readonly write: boolean } => {
  const count = pendingCount(pending) + 1;
  if (pending !== undefined && nowMs - pending.writtenAtMs < DEFERRAL_FLUSH_MS) {
    return { pending: { count, writtenAtMs: pending.writtenAtMs }, write: false };
  }
  return { pending: { count, writtenAtMs: nowMs }, write: true };
};

/**
 * The pending deferrals after a write of the item landed at `nowMs` with `sent` of them: those
 * are counted now, and the deferrals made while it was in flight wait for the next. Undefined
 * when nothing was pending and nothing is: a target never deferred to keeps no entry.
 */
export const deferralsWritten = (
  pending: PendingDeferrals | undefined,
  sent: number,
  nowMs: number,
): PendingDeferrals | undefined => {
  const count = pendingCount(pending) - sent;
  return count > 0 || pending !== undefined ? { count, writtenAtMs: nowMs } : undefined;
};
