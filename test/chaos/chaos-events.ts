import { SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { createRicochetClient } from "../../lib/client/producer-client.js";
import { type Envelope, parseEnvelope } from "../../lib/core/envelope.js";
import { bulkyEnvelopeBody } from "../support/bulky-envelope.js";
import type { DeployedTimings } from "../support/deployed-timings.js";
import { payloadFingerprint } from "../support/guarantee-checks.js";

/** Every regular event's policy: small budget and delays, so doomed events die fast. */
const CHAOS_POLICY = {
  maxAttempts: 4,
  baseDelaySeconds: 1,
  multiplier: 2,
  maxDelaySeconds: 4,
  jitter: "full",
} as const;

/** One bulky event per this many regular ones, at least one per run. */
const EVENTS_PER_BULKY = 400;

/** The events of one chaos run, as submitted. */
export interface ChaosEvents {
  /** Every event id, regular and bulky. */
  readonly eventIds: readonly string[];
  /** The envelope each event was accepted with, by id. */
  readonly envelopes: ReadonlyMap<string, Envelope>;
  /** The fingerprint of the payload the receiver must see for each event, by id. */
  readonly accepted: ReadonlyMap<string, string>;
  /**
   * The bulky events' bodies by id, sent as they are (re-serialising would rewrite their
   * numbers); the receiver refuses these events at once.
   */
  readonly bulkyBodies: ReadonlyMap<string, string>;
}

/**
 * Makes a run's events: `count` regular events, each pointing at its own path on the receiver,
 * and one bulky event per {@link EVENTS_PER_BULKY} (test/support/bulky-envelope.ts): the largest
 * valid envelope, full of number literals, with one attempt.
 */
export const makeChaosEvents = (
  seed: number,
  count: number,
  receiverUrl: string,
  timings: DeployedTimings,
): ChaosEvents => {
  const target = (eventId: string) =>
    ({
      type: "http",
      url: `${receiverUrl}/${eventId}`,
      timeoutMs: timings.targetTimeoutMs,
    }) as const;
  const regular: Envelope[] = Array.from({ length: count }, (_, index) => {
    const eventId = `chaos-${seed}-${index}`;
    return {
      eventId,
      target: target(eventId),
      payload: { origin: eventId, index },
      policy: CHAOS_POLICY,
    };
  });
  const bulkyBodies = new Map(
    Array.from({ length: Math.max(1, Math.floor(count / EVENTS_PER_BULKY)) }, (_, i) => {
      const eventId = `chaos-${seed}-bulky-${i}`;
      return [eventId, bulkyEnvelopeBody({ eventId, target: target(eventId) })] as const;
    }),
  );
  const bulky = [...bulkyBodies.values()].map((body) => {
    const parsed = parseEnvelope(body);
    if (!parsed.ok)
      throw new Error(`bulky envelope is invalid: ${JSON.stringify(parsed.problems)}`);
    return parsed.envelope;
  });
  const all = [...regular, ...bulky];
  return {
    eventIds: all.map((e) => e.eventId),
    envelopes: new Map(all.map((e) => [e.eventId, e])),
    accepted: new Map(all.map((e) => [e.eventId, payloadFingerprint(e.payload)])),
    bulkyBodies,
  };
};

/**
 * Submits the events to the ingress queue as an honest producer would: the regular ones with
 * the client, the bulky ones one by one with their exact bodies (a batch is limited to 1 MiB).
 * @throws Error when any was not accepted.
 */
export const submitChaosEvents = async (
  sqs: SQSClient,
  queueUrl: string,
  events: ChaosEvents,
): Promise<void> => {
  const regular = [...events.envelopes.values()].filter((e) => !events.bulkyBodies.has(e.eventId));
  const submitted = await createRicochetClient({ queueUrl, sqs }).submitBatch(regular);
  if (submitted.rejected.length > 0)
    throw new Error(`${submitted.rejected.length} events were not accepted`);
  for (const body of events.bulkyBodies.values())
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
};
