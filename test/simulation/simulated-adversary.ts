import type { Envelope } from "../../lib/core/envelope.js";
import { MessageOrigin } from "../../lib/core/ports.js";
import { type RandomSource, randomInt } from "../../lib/core/random.js";
import type { EventStatus } from "../../lib/core/status.js";
import {
  type AdversarialProducer,
  createAdversarialProducer,
  createHostileTally,
  type HostileTally,
} from "../support/adversarial-producer.js";
import { streamFor } from "../support/random-streams.js";
import { type MemoryQueue, memoryDeadLetterQueue } from "./memory-queue.js";

/** Share of a run's events a hostile producer goes after. */
const VICTIM_SHARE = 0.25;
/** A hostile message follows what it reacts to within this long: before a short retry is due. */
const MAX_REACTION_MS = 800;

/** What the simulation's hostile producer needs: its seed, the queue, virtual time, its victims. */
export interface SimulatedAdversaryOptions {
  readonly seed: number;
  /** The ingress queue the producers (honest or not) send to. */
  readonly ingress: MemoryQueue;
  /** The dead-letter queue, which the producer can send to as well (issue #31, finding 6). */
  readonly deadLetterQueue: MemoryQueue;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** The envelope each real event was submitted with, by id. */
  readonly envelopes: ReadonlyMap<string, Envelope>;
}

/** The hostile producer of one simulated run (test/support/adversarial-producer.ts). */
export interface SimulatedAdversary {
  /** Tells the adversary an event's record was written with `status`; it may react. */
  observe(eventId: string, status: EventStatus): void;
  /** Hostile messages decided but not yet sent: the run is not over while there are any. */
  pending(): number;
  /** What was sent. */
  readonly tally: HostileTally;
}

/**
 * A hostile producer in virtual time: it reacts to real events' result writes by putting forged
 * copies, conflicting resubmissions and invalid envelopes on the ingress queue, and forged
 * dead-letter copies on the dead-letter queue, a moment later, as a producer with send rights and
 * a view of the records could. Its draws come from streams of its own, so the
 * rest of a seed's run is the same with or without it until its first message lands.
 */
export const createSimulatedAdversary = (
  options: SimulatedAdversaryOptions,
): SimulatedAdversary => {
  const producer: AdversarialProducer = createAdversarialProducer({
    share: VICTIM_SHARE,
    randomFor: (eventId) => streamFor(options.seed, "adversary", eventId),
    forgedTarget: (eventId) => ({
      type: "http",
      url: `https://forger.example.com/${encodeURIComponent(eventId)}`,
    }),
  });
  const delays: RandomSource = streamFor(options.seed, "adversary-delays");
  const tally = createHostileTally();
  const deadLetters = memoryDeadLetterQueue(options.deadLetterQueue);
  let pending = 0;

  const observe = (eventId: string, status: EventStatus): void => {
    const envelope = options.envelopes.get(eventId);
    if (envelope === undefined) return;
    for (const message of producer.movesFor(envelope, status, options.now())) {
      pending += 1;
      void options.sleep(randomInt(delays, 1, MAX_REACTION_MS)).then(async () => {
        if (message.deadLetter !== undefined) await deadLetters.send(message.deadLetter);
        else
          options.ingress.send(message.body, message.schedule, 0, {
            origin: MessageOrigin.PRODUCER,
            reservedAttributes: message.reservedAttributes,
          });
        tally.count(message);
        pending -= 1;
      });
    }
  };

  return { observe, pending: () => pending, tally };
};
