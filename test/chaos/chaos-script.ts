import { pickWeighted, streamFor } from "../support/random-streams.js";

/** How an event's receiver behaves over its whole life. */
export const EventTemper = {
  /** Always answers 200. */
  CLEAN: "clean",
  /** Fails now and then, transiently. */
  FLAKY: "flaky",
  /** Always fails transiently: ends dead-lettered when its budget runs out. */
  DOOMED: "doomed",
  /** Answers 400 (maybe after a transient failure): ends rejected. */
  REFUSED: "refused",
  /**
   * Answers 400 to the first call, then 200: a receiver fixed between two calls. Only a takeover
   * of a rejected event calls it twice, and a second call must never happen once the rejection's
   * dead-letter copy may have left: it would deliver the event beside its copy.
   */
  RELENTING: "relenting",
  /** Answers 400 to every call: the bulky events', which have one attempt and must be rejected. */
  REFUSED_AT_ONCE: "refused_at_once",
} as const;
export type EventTemper = (typeof EventTemper)[keyof typeof EventTemper];

/** What the receiver does with one call. */
export const Reply = {
  OK: "ok",
  SERVER_ERROR: "server_error",
  /** 429 with Retry-After. */
  TOO_MANY_REQUESTS: "too_many_requests",
  /** Acts, then answers 200 only after the caller's timeout: an uncertain outcome. */
  SLOW: "slow",
  /** Reads the request, then resets the connection. */
  RESET: "reset",
  BAD_REQUEST: "bad_request",
} as const;
export type Reply = (typeof Reply)[keyof typeof Reply];

const TEMPERS = [
  [EventTemper.CLEAN, 15],
  [EventTemper.FLAKY, 65],
  [EventTemper.DOOMED, 12],
  [EventTemper.REFUSED, 6],
  [EventTemper.RELENTING, 2],
] as const;

const TRANSIENT = [
  [Reply.SERVER_ERROR, 1],
  [Reply.TOO_MANY_REQUESTS, 1],
  [Reply.SLOW, 1],
  [Reply.RESET, 1],
] as const;

/** Chance that a flaky event's call fails. */
const FLAKY_FAILURE_RATE = 0.4;
/** Chance that a refused event's call fails transiently before the refusal. */
const REFUSED_TRANSIENT_RATE = 0.3;

/** The temper of one event, a function of the seed and its id only. */
export const temperOf = (seed: number, eventId: string): EventTemper =>
  pickWeighted(streamFor(seed, "temper", eventId), TEMPERS);

/**
 * The reply to the `callIndex`-th call (0 first) for `eventId`: a function of the seed, the id,
 * the index and the event's temper (drawn from the seed and the id unless the run set it), so a
 * seed replays each event's script whatever the interleaving.
 */
export const replyFor = (
  seed: number,
  eventId: string,
  callIndex: number,
  temper: EventTemper = temperOf(seed, eventId),
): Reply => {
  const random = streamFor(seed, "reply", eventId, callIndex);
  switch (temper) {
    case EventTemper.CLEAN:
      return Reply.OK;
    case EventTemper.FLAKY:
      return random() < FLAKY_FAILURE_RATE ? pickWeighted(random, TRANSIENT) : Reply.OK;
    case EventTemper.DOOMED:
      return pickWeighted(random, TRANSIENT);
    case EventTemper.REFUSED:
      return random() < REFUSED_TRANSIENT_RATE
        ? pickWeighted(random, TRANSIENT)
        : Reply.BAD_REQUEST;
    case EventTemper.RELENTING:
      return callIndex === 0 ? Reply.BAD_REQUEST : Reply.OK;
    case EventTemper.REFUSED_AT_ONCE:
      return Reply.BAD_REQUEST;
  }
};
