import type { Envelope } from "../../lib/core/envelope.js";
import { envelopeDigest } from "../../lib/core/envelope-digest.js";
import type { EventStore } from "../../lib/core/ports.js";
import type { EventRecord } from "../../lib/core/record.js";
import { describeTarget } from "../../lib/core/redact.js";
import { EventStatus } from "../../lib/core/status.js";
import { anAttemptEntry } from "./factories.js";

/** Where {@link recordedEvent} leaves an event. */
export type RecordedStatus =
  | typeof EventStatus.SCHEDULED
  | typeof EventStatus.RETRY_SCHEDULED
  | typeof EventStatus.DELIVERED;

/**
 * Writes `envelope`'s record as the orchestrator would leave it, through the real store, timed
 * now (so a deadline counts from now): `scheduled` for a minute ahead, or after one attempt
 * `retry_scheduled` at generation 1 or `delivered` at generation 0.
 */
export const recordedEvent = async (
  store: EventStore,
  envelope: Envelope,
  status: RecordedStatus,
): Promise<EventRecord> => {
  const { eventId } = envelope;
  const nowMs = Date.now();
  const digest = envelopeDigest(envelope);
  const targetSummary = describeTarget(envelope.target);
  if (status === EventStatus.SCHEDULED) {
    await store.recordScheduled({
      eventId,
      envelopeDigest: digest,
      dueMs: nowMs + 60_000,
      nowMs,
      attemptBudget: 3,
      targetSummary,
      policyAdjustments: [],
    });
  } else {
    const claim = await store.claim({
      eventId,
      generation: 0,
      worker: "w",
      nowMs,
      leaseMs: 60_000,
      attemptBudget: 3,
      targetSummary,
      envelopeDigest: digest,
    });
    if (claim.kind !== "claimed") throw new Error(`claim: ${claim.kind}`);
    await store.recordResult({
      eventId,
      worker: "w",
      generation: 0,
      newGeneration: status === EventStatus.RETRY_SCHEDULED ? 1 : 0,
      status,
      claimed: claim.record,
      entry: anAttemptEntry(),
      nowMs: nowMs + 10,
      retentionSeconds: 3_600,
    });
  }
  const record = await store.get(eventId);
  if (record?.status !== status) throw new Error(`expected ${status}, got ${record?.status}`);
  return record;
};
