import { MetricName } from "../../contract/metric-names.js";
import { shortDigest } from "../../core/envelope-digest.js";
import type { EventRecord } from "../../core/record.js";
import type { MessageInHand } from "./message-in-hand.js";
import { ACK, type MessageVerdict, type OrchestratorContext } from "./orchestrator-context.js";

/*
 * The messages an event's record turns away without an attempt, whichever step reads the record
 * (a hop, or the claim).
 */

/**
 * A message for a cancelled event is deleted on arrival, never attempted (the cancel's audit
 * entry on the record says who and why).
 */
export const dropCancelled = (
  { deps }: OrchestratorContext,
  { message, generation }: MessageInHand,
  record: EventRecord,
): MessageVerdict => {
  deps.metrics.count(MetricName.CANCELLED_DROPPED);
  deps.log.info("message for a cancelled event dropped", {
    eventId: record.eventId,
    messageId: message.messageId,
    generation,
  });
  return ACK;
};

/**
 * A different envelope under a known id: the first one wins; this one, whose envelope's digest
 * is `digest`, is counted and dropped.
 */
export const refuseConflict = async (
  { deps }: OrchestratorContext,
  { envelope, message }: MessageInHand,
  digest: string,
  record: EventRecord,
): Promise<MessageVerdict> => {
  deps.metrics.count(MetricName.CONFLICTING_RESUBMISSION);
  deps.log.warn("conflicting resubmission dropped: the event's first envelope wins", {
    eventId: envelope.eventId,
    messageId: message.messageId,
    acceptedDigest: shortDigest(record.envelopeDigest ?? ""),
    droppedDigest: shortDigest(digest),
    status: record.status,
  });
  await deps.store.recordConflict({ eventId: envelope.eventId, digest, nowMs: deps.clock() });
  return ACK;
};
