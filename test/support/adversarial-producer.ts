import { SCHEDULE_ATTRIBUTE } from "../../lib/adapters/message-schedule.js";
import {
  DEAD_LETTER_KIND,
  DEAD_LETTER_VERSION,
  type DeadLetterMessage,
} from "../../lib/core/dead-letter.js";
import { DeadLetterReason } from "../../lib/core/decide.js";
import type { Envelope, Target } from "../../lib/core/envelope.js";
import type { MessageSchedule } from "../../lib/core/ports.js";
import { type RandomSource, randomInt } from "../../lib/core/random.js";
import { EventStatus, isTerminal } from "../../lib/core/status.js";
import { hostileText } from "./hostile-text.js";

/*
 * A hostile producer with send rights on the ingress queue, for the simulation and the chaos run
 * alike (guarantees 8 and 9 of DESIGN.md). It watches real events and, at the moments that used
 * to hurt, sends messages under their ids: forged copies that point elsewhere and carry
 * Ricochet's own scheduling attributes, conflicting resubmissions with another payload, invalid
 * envelopes whose key names are terminal escapes, and — with send rights on the dead-letter queue
 * too — forged dead-letter copies. Every hostile payload is marked, so a target can tell it was
 * called with one; a forged dead-letter copy carries the event's own envelope, re-serialised, so
 * it is told apart by its bytes.
 */

/** When, in an event's life, a hostile message is sent, and which kind. */
export const AdversaryMove = {
  /** A forged copy while the event waits for its retry (its generation is live). */
  FORGED_WHILE_WAITING: "forged_while_waiting",
  /** A forged copy once the event was dead-lettered or rejected (a redrive may follow). */
  FORGED_AFTER_DEAD_LETTER: "forged_after_dead_letter",
  /** The same id with another payload, no attributes, while the event waits for its retry. */
  CONFLICT_WHILE_PENDING: "conflict_while_pending",
  /** The same id with another payload, no attributes, once the event has finished. */
  CONFLICT_AFTER_FINISH: "conflict_after_finish",
  /**
   * Once the event was dead-lettered or rejected: a copy sent straight to the dead-letter queue,
   * its body the accepted envelope re-serialised (so that it passes every check before the
   * record's), its `ricochet.deadLetter` summary forged: an `exhausted` decision the record does
   * not hold (issue #31, finding 6), its last outcome a terminal escape.
   */
  FORGED_DEAD_LETTER_COPY: "forged_dead_letter_copy",
  /** Once the event has finished: the envelope under its id with a key named by an escape. */
  HOSTILE_KEY_NAME: "hostile_key_name",
} as const;
export type AdversaryMove = (typeof AdversaryMove)[keyof typeof AdversaryMove];

/** What a hostile payload says it is. */
export const AdversaryMark = {
  FORGED: "forged",
  CONFLICTING: "conflicting",
  /** A forged dead-letter copy (its payload is the event's own: no target call carries it). */
  FORGED_DEAD_LETTER: "forged_dead_letter",
  /** An invalid envelope with a hostile key name (never attempted). */
  HOSTILE_KEY: "hostile_key",
} as const;
export type AdversaryMark = (typeof AdversaryMark)[keyof typeof AdversaryMark];

/**
 * One hostile message, as the producer puts it on the ingress queue, or with `deadLetter` on the
 * dead-letter queue.
 */
export interface AdversarialMessage {
  readonly move: AdversaryMove;
  readonly eventId: string;
  readonly mark: AdversaryMark;
  readonly body: string;
  /** What the forged attributes claim (generation 0 and nothing else when there are none). */
  readonly schedule: MessageSchedule;
  /** The reserved attributes set, by name; empty for a conflicting resubmission. */
  readonly reservedAttributes: readonly string[];
  /** The forged copy (`body` and summary) to send to the dead-letter queue instead. */
  readonly deadLetter?: DeadLetterMessage | undefined;
}

/** How far in the future a forged `ricochet.notBefore` points: long past any run's end. */
const FORGED_NOT_BEFORE_MS = 30 * 24 * 3600 * 1000;
/** The budget a forged copy asks for, far beyond any real event's. */
const FORGED_MAX_ATTEMPTS = 20;

/** The mark on a payload a target received, if it is a hostile one. */
export const markOf = (payload: unknown): AdversaryMark | undefined => {
  if (payload === null || typeof payload !== "object") return undefined;
  const mark = (payload as { adversary?: unknown }).adversary;
  return mark === AdversaryMark.FORGED || mark === AdversaryMark.CONFLICTING ? mark : undefined;
};

/** How a hostile producer picks its victims and where its forgeries point. */
export interface AdversarialProducerOptions {
  /** Share of events picked as victims (0 to 1). */
  readonly share: number;
  /**
   * A random stream of the event's own (see random-streams.ts), so that whether and how an event
   * is attacked does not depend on how the run interleaves.
   */
  readonly randomFor: (eventId: string) => RandomSource;
  /** Where forged copies point: another target than the event's. */
  readonly forgedTarget: (eventId: string) => Target;
}

/** Decides the hostile messages of a run. Stateful: each move is made at most once per event. */
export interface AdversarialProducer {
  /** The moves to make now that `envelope`'s record was seen in `status`. */
  movesFor(envelope: Envelope, status: EventStatus, nowMs: number): AdversarialMessage[];
}

/** Forged scheduling attributes: a generation of 1 to 3, a far-future notBefore, or both. */
const forgedSchedule = (
  random: RandomSource,
  nowMs: number,
): Pick<AdversarialMessage, "schedule" | "reservedAttributes"> => {
  const generation = randomInt(random, 1, 3);
  const notBeforeMs = nowMs + FORGED_NOT_BEFORE_MS;
  switch (randomInt(random, 0, 2)) {
    case 0:
      return { schedule: { generation }, reservedAttributes: [SCHEDULE_ATTRIBUTE.GENERATION] };
    case 1:
      return {
        schedule: { generation: 0, notBeforeMs },
        reservedAttributes: [SCHEDULE_ATTRIBUTE.NOT_BEFORE],
      };
    default:
      return {
        schedule: { generation, notBeforeMs },
        reservedAttributes: [SCHEDULE_ATTRIBUTE.GENERATION, SCHEDULE_ATTRIBUTE.NOT_BEFORE],
      };
  }
};

// The moves added later come last, and draw from streams of their own (see build), so that a
// seed's earlier moves are made exactly as before.
const movesAt = (status: EventStatus): readonly AdversaryMove[] => {
  if (status === EventStatus.RETRY_SCHEDULED)
    return [AdversaryMove.FORGED_WHILE_WAITING, AdversaryMove.CONFLICT_WHILE_PENDING];
  if (status === EventStatus.DELIVERED)
    return [AdversaryMove.CONFLICT_AFTER_FINISH, AdversaryMove.HOSTILE_KEY_NAME];
  if (status === EventStatus.CANCELLED)
    return [AdversaryMove.FORGED_AFTER_DEAD_LETTER, AdversaryMove.CONFLICT_AFTER_FINISH];
  if (isTerminal(status))
    return [
      AdversaryMove.FORGED_AFTER_DEAD_LETTER,
      AdversaryMove.CONFLICT_AFTER_FINISH,
      AdversaryMove.FORGED_DEAD_LETTER_COPY,
      AdversaryMove.HOSTILE_KEY_NAME,
    ];
  return [];
};

/**
 * A forged dead-letter copy of `envelope`: the envelope re-serialised (indented, so its bytes are
 * never the producer's) under a summary no record holds — an `exhausted` decision after 8
 * attempts at a time that never was, at generation 0 to 2.
 */
const forgedDeadLetter = (
  envelope: Envelope,
  random: RandomSource,
  nowMs: number,
): DeadLetterMessage => ({
  kind: DEAD_LETTER_KIND,
  version: DEAD_LETTER_VERSION,
  reason: DeadLetterReason.EXHAUSTED,
  eventId: envelope.eventId,
  body: JSON.stringify(envelope, null, 1),
  attempts: 8,
  generation: randomInt(random, 0, 2),
  lastOutcome: { class: "retryable", statusCode: 503, message: hostileText(random) },
  deadLetteredAt: new Date(nowMs - randomInt(random, 1, 3_600_000)).toISOString(),
});

/**
 * Largest envelope (compact JSON) a dead-letter copy is forged for: re-serialised indented, a
 * bulky one would no longer fit beside a summary, and a cut body is refused before verification.
 */
const MAX_FORGED_COPY_ENVELOPE_CHARS = 64 * 1024;

const mayMake = (move: AdversaryMove, envelope: Envelope): boolean =>
  move !== AdversaryMove.FORGED_DEAD_LETTER_COPY ||
  JSON.stringify(envelope).length <= MAX_FORGED_COPY_ENVELOPE_CHARS;

const isForged = (move: AdversaryMove): boolean =>
  move === AdversaryMove.FORGED_WHILE_WAITING || move === AdversaryMove.FORGED_AFTER_DEAD_LETTER;

/** A hostile producer over the given victims' share; see {@link AdversarialProducer}. */
export const createAdversarialProducer = (
  options: AdversarialProducerOptions,
): AdversarialProducer => {
  const made = new Set<string>();
  const streams = new Map<string, RandomSource>();
  const streamOf = (eventId: string): RandomSource => {
    let stream = streams.get(eventId);
    if (stream === undefined) {
      stream = options.randomFor(eventId);
      streams.set(eventId, stream);
    }
    return stream;
  };
  const victims = new Map<string, boolean>();
  const isVictim = (eventId: string): boolean => {
    let victim = victims.get(eventId);
    if (victim === undefined) {
      victim = streamOf(eventId)() < options.share;
      victims.set(eventId, victim);
    }
    return victim;
  };

  const build = (envelope: Envelope, move: AdversaryMove, nowMs: number): AdversarialMessage => {
    const { eventId } = envelope;
    const random = streamOf(eventId);
    if (move === AdversaryMove.FORGED_DEAD_LETTER_COPY) {
      const deadLetter = forgedDeadLetter(envelope, options.randomFor(`${eventId}#${move}`), nowMs);
      return {
        move,
        eventId,
        mark: AdversaryMark.FORGED_DEAD_LETTER,
        body: deadLetter.body,
        schedule: { generation: 0 },
        reservedAttributes: [],
        deadLetter,
      };
    }
    if (move === AdversaryMove.HOSTILE_KEY_NAME) {
      const key = hostileText(options.randomFor(`${eventId}#${move}`));
      return {
        move,
        eventId,
        mark: AdversaryMark.HOSTILE_KEY,
        // The event's id and target, and a small payload: a bulky event's own would not fit.
        body: JSON.stringify({
          eventId,
          target: envelope.target,
          payload: { adversary: AdversaryMark.HOSTILE_KEY },
          [key]: true,
        }),
        schedule: { generation: 0 },
        reservedAttributes: [],
      };
    }
    if (isForged(move)) {
      const forged: Envelope = {
        eventId,
        target: options.forgedTarget(eventId),
        payload: { adversary: AdversaryMark.FORGED, move },
        policy: { maxAttempts: FORGED_MAX_ATTEMPTS },
      };
      return {
        move,
        eventId,
        mark: AdversaryMark.FORGED,
        body: JSON.stringify(forged),
        ...forgedSchedule(random, nowMs),
      };
    }
    const conflicting: Envelope = {
      ...envelope,
      payload: { adversary: AdversaryMark.CONFLICTING, move },
    };
    return {
      move,
      eventId,
      mark: AdversaryMark.CONFLICTING,
      body: JSON.stringify(conflicting),
      schedule: { generation: 0 },
      reservedAttributes: [],
    };
  };

  return {
    movesFor: (envelope, status, nowMs) => {
      if (!isVictim(envelope.eventId)) return [];
      const due = movesAt(status).filter(
        (move) => !made.has(`${envelope.eventId}:${move}`) && mayMake(move, envelope),
      );
      for (const move of due) made.add(`${envelope.eventId}:${move}`);
      return due.map((move) => build(envelope, move, nowMs));
    },
  };
};

/** What a hostile producer actually sent, for the checks and the run's report. */
export interface HostileTally {
  /** Messages sent, by kind. */
  readonly sent: Readonly<Record<AdversaryMark, number>>;
  /** Conflicting resubmissions sent, by event id (each must be counted on its record). */
  readonly conflictsSent: ReadonlyMap<string, number>;
  /** The bodies of the forged dead-letter copies sent: no redrive may move one. */
  readonly forgedDeadLetterBodies: ReadonlySet<string>;
  /** Counts `message` as sent; call it only once the queue accepted it. */
  count(message: AdversarialMessage): void;
}

/** An empty {@link HostileTally}. */
export const createHostileTally = (): HostileTally => {
  const sent = Object.fromEntries(Object.values(AdversaryMark).map((mark) => [mark, 0])) as Record<
    AdversaryMark,
    number
  >;
  const conflictsSent = new Map<string, number>();
  const forgedDeadLetterBodies = new Set<string>();
  return {
    sent,
    conflictsSent,
    forgedDeadLetterBodies,
    count: (message) => {
      sent[message.mark] += 1;
      if (message.deadLetter !== undefined) forgedDeadLetterBodies.add(message.deadLetter.body);
      if (message.mark === AdversaryMark.CONFLICTING)
        conflictsSent.set(message.eventId, (conflictsSent.get(message.eventId) ?? 0) + 1);
    },
  };
};

/*
 * Moves on shared targets: a hostile producer's own events, valid and accepted, aimed at what
 * every producer of a target shares — its breaker and its limits (issue #31, findings 3 and 4).
 */

/** What a hostile producer's own events try on a shared target. */
export const SharedTargetMove = {
  /**
   * Timeouts far below what a healthy, slow partner needs, so that every call fails: counted, they
   * would open the partner's breaker for every other producer.
   */
  SHORT_TIMEOUT_FLOOD: "short_timeout_flood",
  /** The target's URL in other spellings of its host, each a fresh key were keys spellings. */
  RESPELLED_TARGET: "respelled_target",
} as const;
export type SharedTargetMove = (typeof SharedTargetMove)[keyof typeof SharedTargetMove];

/** A timeout below any deployment's floor for counting one (the default floor is 1000 ms). */
export const FLOOD_TIMEOUT_MS = 100;

/**
 * Spellings of one host name that reach the same place: the fully-qualified trailing dot, with
 * case and the default port on top (a URL parser folds those two alone, not the dot).
 */
const respellings = (host: string, scheme: "http" | "https"): readonly string[] => {
  const port = scheme === "https" ? 443 : 80;
  const shouted = host.toUpperCase();
  return [`${host}.`, `${shouted}.`, `${host}.:${port}`, `${shouted}.:${port}`];
};

/** One of a hostile producer's own events: a valid envelope, stamped like every event. */
export interface SharedTargetEvent {
  readonly move: SharedTargetMove;
  readonly envelope: Envelope;
}

/**
 * A hostile producer's own events against shared targets: `count` short-timeout events to
 * `slowOrigin` (a healthy partner slower than {@link FLOOD_TIMEOUT_MS}), and `count` events to
 * `sharedOrigin` spelled every other way. Payloads carry `origin` (the event id) like honest ones,
 * since these are accepted events the run's guarantees hold for too.
 */
export const sharedTargetEvents = (options: {
  readonly idPrefix: string;
  readonly count: number;
  readonly slowOrigin: string;
  readonly sharedOrigin: string;
}): SharedTargetEvent[] => {
  const shared = new URL(options.sharedOrigin);
  const scheme = shared.protocol === "https:" ? "https" : "http";
  const spellings = respellings(shared.hostname, scheme);
  const event = (move: SharedTargetMove, n: number, url: string, timeoutMs?: number) => {
    const eventId = `${options.idPrefix}-${move}-${n}`;
    return {
      move,
      envelope: {
        eventId,
        target: { type: "http" as const, url, ...(timeoutMs === undefined ? {} : { timeoutMs }) },
        payload: { origin: eventId, adversaryMove: move },
        policy: { maxAttempts: 1 },
      },
    };
  };
  return Array.from({ length: options.count }, (_, n) => [
    event(
      SharedTargetMove.SHORT_TIMEOUT_FLOOD,
      n,
      `${options.slowOrigin}/flood/${n}`,
      FLOOD_TIMEOUT_MS,
    ),
    event(
      SharedTargetMove.RESPELLED_TARGET,
      n,
      `${scheme}://${spellings[n % spellings.length]}/respelled/${n}`,
    ),
  ]).flat();
};
