import {
  DEAD_LETTER_KIND,
  DEAD_LETTER_VERSION,
  type DeadLetterMessage,
} from "../../lib/core/dead-letter.js";
import type { Envelope } from "../../lib/core/envelope.js";
import { envelopeDigest } from "../../lib/core/envelope-digest.js";
import type { DeadLetterQueue, EventStore } from "../../lib/core/ports.js";
import { describeTarget } from "../../lib/core/redact.js";
import { type TargetGroups, targetKeying } from "../../lib/core/target-groups.js";
import { anAttemptEntry, anEnvelope, FIXED_NOW_MS } from "./factories.js";

/**
 * A plausible `exhausted` dead-letter copy of `envelope` (8 attempts, generation 7, a 503), as the
 * orchestrator writes one or as a forger with SendMessage on the queue would; `overrides` change
 * any field.
 */
export const aDeadLetterMessage = (
  envelope: Envelope = anEnvelope(),
  overrides: Partial<DeadLetterMessage> = {},
): DeadLetterMessage => ({
  kind: DEAD_LETTER_KIND,
  version: DEAD_LETTER_VERSION,
  reason: "exhausted",
  eventId: envelope.eventId,
  body: JSON.stringify(envelope),
  attempts: 8,
  generation: 7,
  lastOutcome: { class: "retryable", statusCode: 503, message: "HTTP 503" },
  deadLetteredAt: "2030-01-01T00:00:00.000Z",
  ...overrides,
});

/**
 * Takes an event through one failed attempt to `dead_lettered` and parks it in the dead-letter
 * queue the way the orchestrator does (send the copy, then record), using the real adapters,
 * under the deployment's declared target `groups`. The attempt's outcome says `outcomeMessage`
 * (the receiver's reply, as stored), `HTTP 503` unless given.
 */
export const deadLetterEvent = async (
  store: EventStore,
  dlq: DeadLetterQueue,
  envelope: Envelope = anEnvelope(),
  groups?: TargetGroups,
  { outcomeMessage = "HTTP 503" }: { readonly outcomeMessage?: string } = {},
): Promise<Envelope> => {
  const target = targetKeying(groups)(envelope.target);
  const claimed = await store.claim({
    eventId: envelope.eventId,
    generation: 0,
    worker: "w",
    nowMs: FIXED_NOW_MS,
    leaseMs: 60_000,
    attemptBudget: 1,
    targetSummary: describeTarget(envelope.target),
    targetGroup: target.group,
    envelopeDigest: envelopeDigest(envelope),
  });
  if (claimed.kind !== "claimed") throw new Error(`claim: ${claimed.kind}`);
  // As the orchestrator does: the copy's time is the deciding attempt's end, which the record keeps.
  const decidedAt = new Date(FIXED_NOW_MS + 1000).toISOString();
  const message: DeadLetterMessage = {
    kind: DEAD_LETTER_KIND,
    version: DEAD_LETTER_VERSION,
    reason: "exhausted",
    eventId: envelope.eventId,
    targetKey: target.key,
    body: JSON.stringify(envelope),
    attempts: 1,
    generation: 0,
    lastOutcome: { class: "retryable", statusCode: 503, message: outcomeMessage },
    deadLetteredAt: decidedAt,
  };
  await dlq.send(message);
  await store.recordResult({
    eventId: envelope.eventId,
    worker: "w",
    generation: 0,
    newGeneration: 0,
    status: "dead_lettered",
    claimed: claimed.record,
    entry: anAttemptEntry({ attempt: 1, finishedAt: decidedAt, message: outcomeMessage }),
    deadLetterReason: "exhausted",
    nowMs: FIXED_NOW_MS + 1000,
    retentionSeconds: 3600,
  });
  return envelope;
};
