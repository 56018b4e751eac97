import { describe, expect, it } from "vitest";
import { SCHEDULE_ATTRIBUTE } from "../../lib/adapters/message-schedule.js";
import {
  MAX_ENVELOPE_BYTES,
  MAX_MESSAGE_BYTES,
  parseEnvelope,
  utf8Bytes,
} from "../../lib/core/envelope.js";
import { envelopeDigest } from "../../lib/core/envelope-digest.js";
import { EventStatus } from "../../lib/core/status.js";
import { naturalTargetKey } from "../../lib/core/target-key.js";
import {
  AdversaryMark,
  AdversaryMove,
  createAdversarialProducer,
  createHostileTally,
  FLOOD_TIMEOUT_MS,
  markOf,
  SharedTargetMove,
  sharedTargetEvents,
} from "./adversarial-producer.js";
import { bulkyEnvelopeBody } from "./bulky-envelope.js";
import { anEnvelope, FIXED_NOW_MS } from "./factories.js";
import { HOSTILE_TEXTS } from "./hostile-text.js";
import { streamFor } from "./random-streams.js";

const FORGER = { type: "http", url: "https://forger.example.com/x" } as const;

const producer = (share: number) =>
  createAdversarialProducer({
    share,
    randomFor: (eventId) => streamFor(1, eventId),
    forgedTarget: () => FORGER,
  });

describe("the adversarial producer", () => {
  it("attacks a victim while it waits for its retry, and again once it finished, each move once", () => {
    const adversary = producer(1);
    const envelope = anEnvelope();
    const waiting = adversary.movesFor(envelope, EventStatus.RETRY_SCHEDULED, FIXED_NOW_MS);
    const again = adversary.movesFor(envelope, EventStatus.RETRY_SCHEDULED, FIXED_NOW_MS);
    const finished = adversary.movesFor(envelope, EventStatus.DEAD_LETTERED, FIXED_NOW_MS);
    expect(waiting.map((m) => m.move)).toEqual([
      AdversaryMove.FORGED_WHILE_WAITING,
      AdversaryMove.CONFLICT_WHILE_PENDING,
    ]);
    expect(again).toEqual([]);
    expect(finished.map((m) => m.move)).toEqual([
      AdversaryMove.FORGED_AFTER_DEAD_LETTER,
      AdversaryMove.CONFLICT_AFTER_FINISH,
      AdversaryMove.FORGED_DEAD_LETTER_COPY,
      AdversaryMove.HOSTILE_KEY_NAME,
    ]);
  });

  it("forges a dead-letter copy of the accepted envelope, re-serialised, under a summary no record holds", () => {
    const envelope = anEnvelope();
    const [copy] = producer(1)
      .movesFor(envelope, EventStatus.DEAD_LETTERED, FIXED_NOW_MS)
      .filter((m) => m.move === AdversaryMove.FORGED_DEAD_LETTER_COPY);
    const forged = copy?.deadLetter;
    if (forged === undefined) throw new Error("a forged dead-letter copy must carry its summary");
    const parsed = parseEnvelope(forged.body);
    expect(parsed.ok && envelopeDigest(parsed.envelope)).toBe(envelopeDigest(envelope));
    expect(forged.body).not.toBe(JSON.stringify(envelope));
    expect(forged).toMatchObject({ eventId: envelope.eventId, reason: "exhausted", attempts: 8 });
    expect(Date.parse(forged.deadLetteredAt)).toBeLessThan(FIXED_NOW_MS);
  });

  it("sends an envelope under the event's id whose key name is a terminal escape, refused as invalid", () => {
    const envelope = anEnvelope();
    const [hostile] = producer(1)
      .movesFor(envelope, EventStatus.DELIVERED, FIXED_NOW_MS)
      .filter((m) => m.move === AdversaryMove.HOSTILE_KEY_NAME);
    const parsed = parseEnvelope(hostile?.body ?? "");
    expect(parsed.ok).toBe(false);
    expect(JSON.parse(hostile?.body ?? "{}")).toMatchObject({ eventId: envelope.eventId });
    expect(
      Object.keys(JSON.parse(hostile?.body ?? "{}")).some((k) => HOSTILE_TEXTS.includes(k)),
    ).toBe(true);
  });

  it("leaves events that are not victims alone", () => {
    const moves = [EventStatus.RETRY_SCHEDULED, EventStatus.DELIVERED].flatMap((status) =>
      producer(0).movesFor(anEnvelope(), status, FIXED_NOW_MS),
    );
    expect(moves).toEqual([]);
  });

  it("forges copies that point elsewhere, ask for more attempts and carry reserved attributes", () => {
    const envelope = anEnvelope();
    const forged = Array.from({ length: 30 }, () =>
      producer(1).movesFor(anEnvelope({ eventId: envelope.eventId }), EventStatus.REJECTED, 0),
    )
      .flat()
      .filter((m) => m.mark === AdversaryMark.FORGED);
    expect(forged.length).toBeGreaterThan(0);
    for (const message of forged) {
      const parsed = parseEnvelope(message.body);
      if (!parsed.ok) throw new Error("a forged copy must be a valid envelope");
      expect(parsed.envelope).toMatchObject({ eventId: envelope.eventId, target: FORGER });
      expect(markOf(parsed.envelope.payload)).toBe(AdversaryMark.FORGED);
      expect(message.reservedAttributes.length).toBeGreaterThan(0);
      // Each named attribute carries what the schedule claims: a generation 1-3, a far notBefore.
      if (message.reservedAttributes.includes(SCHEDULE_ATTRIBUTE.GENERATION))
        expect(message.schedule.generation).toBeGreaterThanOrEqual(1);
      expect(message.reservedAttributes.includes(SCHEDULE_ATTRIBUTE.NOT_BEFORE)).toBe(
        message.schedule.notBeforeMs !== undefined,
      );
    }
  });

  it("resubmits a conflicting envelope with the same target, another payload and no attributes", () => {
    const envelope = anEnvelope();
    const [conflict] = producer(1)
      .movesFor(envelope, EventStatus.DELIVERED, FIXED_NOW_MS)
      .filter((m) => m.mark === AdversaryMark.CONFLICTING);
    const parsed = parseEnvelope(conflict?.body ?? "");
    if (!parsed.ok) throw new Error("a conflicting resubmission must be a valid envelope");
    expect(parsed.envelope.target).toEqual(envelope.target);
    expect(markOf(parsed.envelope.payload)).toBe(AdversaryMark.CONFLICTING);
    expect(conflict?.reservedAttributes).toEqual([]);
  });

  it("tallies what was sent, conflicting resubmissions by event", () => {
    const tally = createHostileTally();
    const envelope = anEnvelope();
    for (const message of producer(1).movesFor(envelope, EventStatus.RETRY_SCHEDULED, 0))
      tally.count(message);
    expect(tally.sent).toEqual({
      forged: 1,
      conflicting: 1,
      forged_dead_letter: 0,
      hostile_key: 0,
    });
    expect([...tally.conflictsSent]).toEqual([[envelope.eventId, 1]]);
  });
});

describe("the adversarial producer's own events on shared targets", () => {
  const events = sharedTargetEvents({
    idPrefix: "hostile",
    count: 4,
    slowOrigin: "https://slow.example.com",
    sharedOrigin: "https://receiver.example.com",
  });
  const of = (move: SharedTargetMove) => events.filter((e) => e.move === move);

  it("are valid envelopes, stamped with their own id like honest ones", () => {
    for (const { envelope } of events) {
      const parsed = parseEnvelope(JSON.stringify(envelope));
      expect(parsed.ok).toBe(true);
      expect(envelope.payload).toMatchObject({ origin: envelope.eventId });
    }
  });

  it("flood the slow origin with timeouts below any floor", () => {
    const flood = of(SharedTargetMove.SHORT_TIMEOUT_FLOOD);
    expect(flood).toHaveLength(4);
    for (const { envelope } of flood)
      expect(envelope.target).toMatchObject({ timeoutMs: FLOOD_TIMEOUT_MS });
  });

  it("spell the shared origin in ways that are all one target", () => {
    const respelled = of(SharedTargetMove.RESPELLED_TARGET);
    const urls = new Set(respelled.map((e) => (e.envelope.target as { url: string }).url));
    expect(urls.size).toBe(4);
    for (const { envelope } of respelled)
      expect(naturalTargetKey(envelope.target)).toBe("http:https://receiver.example.com:443");
  });
});

describe("the bulky envelope", () => {
  const body = bulkyEnvelopeBody({ eventId: "bulky-1", target: FORGER });

  it("is a valid envelope within one number of the size limit", () => {
    const parsed = parseEnvelope(body);
    expect(parsed.ok).toBe(true);
    expect(utf8Bytes(body)).toBeLessThanOrEqual(MAX_ENVELOPE_BYTES);
    expect(utf8Bytes(body)).toBeGreaterThan(MAX_ENVELOPE_BYTES - 40);
    expect(parsed.ok && parsed.envelope.policy?.maxAttempts).toBe(1);
  });

  it("is written with number literals that JSON rewrites, past SQS's limit", () => {
    expect(body).toContain("1e20,1e+16,-0,0.1000000000000000055511151231257827");
    expect(utf8Bytes(JSON.stringify(JSON.parse(body)))).toBeGreaterThan(MAX_MESSAGE_BYTES);
  });
});
