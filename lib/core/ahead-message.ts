import type { EventRecord } from "./record.js";
import { EventStatus } from "./status.js";

/*
 * A message "ahead" of its record carries a generation the record has not reached: its issuer
 * (an attempt scheduling a retry, or a redrive) sends the message before it records it, so that
 * a crash never strands the event. What the early copy does depends on why the record lags.
 */

/** Receives an ahead copy is given before it is judged orphaned (its issuer never recorded it). */
export const MAX_AHEAD_RECEIVES = 4;
/** Waits (seconds) before the second, third and fourth look at an orphan candidate. */
const ORPHAN_WAITS_SECONDS = [1, 5, 30] as const;
/**
 * The first look comes back after a second: a retry drawn at 0 s is usually received before its
 * issuer's result write lands, milliseconds later, and a longer wait shows as a late retry.
 */
const FIRST_WAIT_SECONDS = 1;

export type AheadVerdict =
  | { readonly kind: "wait"; readonly seconds: number }
  /** Nothing will ever record this copy's generation: drop it (see {@link aheadVerdict}). */
  | { readonly kind: "drop"; readonly reason: string };

/**
 * What to do with a copy one or more generations ahead of `record`, on its `receiveCount`-th
 * receive.
 * - The attempt that issued it still holds its lease (result write pending, slow, or failed):
 *   look again after a second, then once the lease has expired — when the copy may take the
 *   event over (lib/core/claim.ts) instead of waiting for the source message's visibility
 *   timeout. Bounded receives, so SQS's `maxReceiveCount` never parks it.
 * - Anything else (a terminal or waiting record): its issuer was a redrive that died between
 *   sending and recording. Its dead-letter copy is still there to redrive again, and the record
 *   does not count on this copy, so after a few looks it is dropped.
 */
export const aheadVerdict = (
  record: EventRecord,
  messageGeneration: number,
  receiveCount: number,
  nowMs: number,
): AheadVerdict => {
  const issuerHoldsLease =
    record.status === EventStatus.IN_FLIGHT && messageGeneration === record.generation + 1;
  if (receiveCount <= 1) return { kind: "wait", seconds: FIRST_WAIT_SECONDS };
  if (issuerHoldsLease) {
    const leftMs = (record.leaseExpiresAt ?? nowMs) - nowMs;
    return { kind: "wait", seconds: Math.max(1, Math.ceil(leftMs / 1000) + 1) };
  }
  if (receiveCount >= MAX_AHEAD_RECEIVES) {
    return {
      kind: "drop",
      reason: `generation ${messageGeneration} was never recorded (record at ${record.generation}, ${record.status})`,
    };
  }
  return {
    kind: "wait",
    seconds: ORPHAN_WAITS_SECONDS[receiveCount - 1] ?? FIRST_WAIT_SECONDS,
  };
};
