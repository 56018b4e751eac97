import { SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { scheduleToAttributes } from "../../lib/adapters/message-schedule.js";
import { createSqsDeadLetterQueue } from "../../lib/adapters/sqs-dead-letter-queue.js";
import type { Envelope } from "../../lib/core/envelope.js";
import type { EventStatus } from "../../lib/core/status.js";
import {
  type AdversarialMessage,
  createAdversarialProducer,
  createHostileTally,
  type HostileTally,
} from "../support/adversarial-producer.js";
import { streamFor } from "../support/random-streams.js";
import { FORGED_PATH } from "./chaos-receiver.js";

/** Share of a run's events a hostile producer goes after. */
const VICTIM_SHARE = 0.2;

/** What the chaos run's hostile producer needs: where to send, and what it attacks. */
export interface ChaosAdversaryOptions {
  readonly seed: number;
  readonly sqs: SQSClient;
  /** The ingress queue: a producer's only way in. */
  readonly queueUrl: string;
  /** The dead-letter queue, which a producer with SendMessage on it forges copies in. */
  readonly deadLetterQueueUrl: string;
  /** The envelope each real event was submitted with, by id. */
  readonly envelopes: ReadonlyMap<string, Envelope>;
  /** The chaos receiver's URL: forged copies point at `${url}/forged/${eventId}`. */
  readonly receiverUrl: string;
  readonly targetTimeoutMs: number;
}

/** The hostile producer of one chaos run (test/support/adversarial-producer.ts), over SQS. */
export interface ChaosAdversary {
  /** Tells the adversary an event's record was written with `status`; it may react. */
  observe(eventId: string, status: EventStatus): void;
  /** Resolves once every hostile message decided so far was sent (or failed to be). */
  settle(): Promise<void>;
  /** What was sent. */
  readonly tally: HostileTally;
}

/** The reserved attributes a hostile message forges, with the values its schedule claims. */
const forgedAttributes = (message: AdversarialMessage) => {
  const all = scheduleToAttributes(message.schedule);
  return Object.fromEntries(
    message.reservedAttributes.flatMap((name) => {
      const value = all[name];
      return value === undefined ? [] : [[name, value]];
    }),
  );
};

/**
 * A hostile producer on the emulators: told by the workers of every result write that landed,
 * it sends forged copies (pointing at the receiver's forged path, with Ricochet's scheduling
 * attributes) and conflicting resubmissions to the ingress queue at once, while the event waits
 * for its retry or after it finished.
 */
export const createChaosAdversary = (options: ChaosAdversaryOptions): ChaosAdversary => {
  const producer = createAdversarialProducer({
    share: VICTIM_SHARE,
    randomFor: (eventId) => streamFor(options.seed, "adversary", eventId),
    forgedTarget: (eventId) => ({
      type: "http",
      url: `${options.receiverUrl}/${FORGED_PATH}${encodeURIComponent(eventId)}`,
      timeoutMs: options.targetTimeoutMs,
    }),
  });
  const tally = createHostileTally();
  const sending = new Set<Promise<void>>();
  // Ricochet's own adapter sends exactly what `aws sqs send-message` with the summary would.
  const deadLetters = createSqsDeadLetterQueue({
    sqs: options.sqs,
    queueUrl: options.deadLetterQueueUrl,
  });

  const send = async (message: AdversarialMessage): Promise<void> => {
    if (message.deadLetter !== undefined) {
      await deadLetters.send(message.deadLetter);
      tally.count(message);
      return;
    }
    const attributes = forgedAttributes(message);
    await options.sqs.send(
      new SendMessageCommand({
        QueueUrl: options.queueUrl,
        MessageBody: message.body,
        ...(Object.keys(attributes).length > 0 ? { MessageAttributes: attributes } : {}),
      }),
    );
    tally.count(message);
  };

  return {
    observe: (eventId, status) => {
      const envelope = options.envelopes.get(eventId);
      if (envelope === undefined) return;
      for (const message of producer.movesFor(envelope, status, Date.now())) {
        // A send that fails was never made: only sent messages are counted and checked.
        const pending = send(message).catch(() => undefined);
        sending.add(pending);
        void pending.finally(() => sending.delete(pending));
      }
    },
    settle: async () => {
      await Promise.all([...sending]);
    },
    tally,
  };
};
