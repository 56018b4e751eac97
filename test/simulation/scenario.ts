import { type Envelope, parseEnvelope } from "../../lib/core/envelope.js";
import type { PolicyOverride } from "../../lib/core/policy.js";
import { type RandomSource, randomInt } from "../../lib/core/random.js";
import { sharedTargetEvents } from "../support/adversarial-producer.js";
import { bulkyEnvelopeBody } from "../support/bulky-envelope.js";
import { streamFor } from "../support/random-streams.js";
import { Behaviour, type BehaviourWeights } from "./simulated-target.js";

/** One event a simulated producer submits. */
export interface ScenarioEvent {
  readonly envelope: Envelope;
  /** The exact body sent, when it is not `JSON.stringify(envelope)` (number literals). */
  readonly body?: string;
  readonly submitAtMs: number;
  readonly weights: BehaviourWeights;
}

export interface ScenarioOptions {
  readonly seed: number;
  readonly events: number;
  readonly startMs: number;
  /** Scales the weight of stalls (calls that outlive their lease). */
  readonly faultRate: number;
  /** Whether some events go to Lambda targets (whose timeout is fixed at 60 s). */
  readonly lambdaTargets: boolean;
}

const pick = <T>(random: RandomSource, items: readonly T[]): T =>
  items[randomInt(random, 0, items.length - 1)] as T;

/** Receivers of different temperaments, so every outcome class and decision is exercised. */
const profiles = (stall: number): readonly BehaviourWeights[] => [
  {
    success: 8,
    server_error: 1,
    too_many_requests: 0.5,
    bad_request: 0,
    timeout_after_acting: 0.5,
    connection_refused: 0.5,
    stall,
  },
  {
    success: 2,
    server_error: 3,
    too_many_requests: 1,
    bad_request: 0,
    timeout_after_acting: 1,
    connection_refused: 1,
    stall,
  },
  {
    success: 0,
    server_error: 4,
    too_many_requests: 1,
    bad_request: 0,
    timeout_after_acting: 1,
    connection_refused: 1,
    stall,
  },
  {
    success: 1,
    server_error: 1,
    too_many_requests: 0,
    bad_request: 2,
    timeout_after_acting: 0,
    connection_refused: 0,
    stall,
  },
];

/** An HTTP target's timeout: the drawn one, except every fourth event keeps the default. */
const withDefaultTimeout = (index: number, drawnMs: number): { timeoutMs?: number } =>
  index % 4 === 3 ? {} : { timeoutMs: drawnMs };

/**
 * Draws the events of one run from the seed: small budgets and short delays so a run ends in a
 * few virtual minutes, with some delays beyond the hop length, some deadlines, and payloads
 * stamped with their submitted id (`payload.origin`) so identity can be checked end to end.
 */
export const drawScenario = (options: ScenarioOptions, random: RandomSource): ScenarioEvent[] => {
  const all = profiles(Math.max(0, options.faultRate) * 10);
  return Array.from({ length: options.events }, (_, index) => {
    const eventId = `evt-${options.seed}-${index}`;
    const submitAtMs = options.startMs + randomInt(random, 0, 30_000);
    const policy: PolicyOverride = {
      maxAttempts: randomInt(random, 1, 5),
      baseDelaySeconds: randomInt(random, 0, 4),
      multiplier: pick(random, [1, 2, 3]),
      maxDelaySeconds: pick(random, [5, 30, 60, 120]),
      jitter: pick(random, ["full", "equal", "decorrelated", "none"] as const),
      maxRetryAfterSeconds: pick(random, [0, 10, 60]),
      ...(random() < 0.2 ? { deadlineSeconds: randomInt(random, 5, 300) } : {}),
    };
    const lambda = options.lambdaTargets && random() < 0.15;
    const envelope: Envelope = {
      eventId,
      target: lambda
        ? { type: "lambda", functionName: "receiver" }
        : {
            type: "http",
            url: `${SHARED_ORIGIN}/hooks/${index}`,
            // Every fourth leaves it to the default, which makes the deployed lease. Drawn either
            // way, so that a seed's other draws stay what they were.
            ...withDefaultTimeout(index, randomInt(random, 200, 8_000)),
          },
      payload: { origin: eventId, index },
      policy,
      ...(random() < 0.1
        ? { deadline: new Date(submitAtMs + randomInt(random, 1_000, 600_000)).toISOString() }
        : {}),
    };
    const scheduled = withNotBefore(envelope, options.seed, submitAtMs);
    return { envelope: scheduled, submitAtMs, weights: pick(random, all) };
  });
};

/** Share of events a producer schedules ahead (`notBefore`). */
const SCHEDULED_SHARE = 0.2;
/** How far ahead, at most: past the simulation's 20 s hop, so some take several hops. */
const MAX_SCHEDULE_AHEAD_MS = 90_000;

/**
 * Gives some events a `notBefore`, drawn from a stream of their own (so the other draws of a seed
 * stay what they were before scheduling existed). Kept within the event's deadlines, with a
 * second to spare for a worker whose clock lags: a valid schedule, not an invalid envelope.
 */
const withNotBefore = (envelope: Envelope, seed: number, submitAtMs: number): Envelope => {
  const random = streamFor(seed, "not-before", envelope.eventId);
  if (random() >= SCHEDULED_SHARE) return envelope;
  const limits = [submitAtMs + MAX_SCHEDULE_AHEAD_MS];
  if (envelope.deadline !== undefined) limits.push(Date.parse(envelope.deadline));
  const deadlineSeconds = envelope.policy?.deadlineSeconds;
  if (deadlineSeconds !== undefined) limits.push(submitAtMs + deadlineSeconds * 1000 - 1_000);
  const latestMs = Math.min(...limits);
  if (latestMs <= submitAtMs) return envelope;
  const notBeforeMs = randomInt(random, submitAtMs, latestMs);
  return { ...envelope, notBefore: new Date(notBeforeMs).toISOString() };
};

/** The exact body the producer sends for `event`. */
export const bodyOf = (event: ScenarioEvent): string =>
  event.body ?? JSON.stringify(event.envelope);

/** Share of runs with one bulky event: each costs a few parses of a 1 MiB body per receive. */
const BULKY_RUN_SHARE = 0.1;

/** A receiver that refuses every call for good (HTTP 400). */
const REFUSES: BehaviourWeights = {
  success: 0,
  server_error: 0,
  too_many_requests: 0,
  bad_request: 1,
  timeout_after_acting: 0,
  connection_refused: 0,
  stall: 0,
};

/**
 * The run's bulky events (none or one, from a stream of their own so the other draws stay as they
 * were): the largest valid envelope, full of number literals that JSON would rewrite, with one
 * attempt against a receiver that refuses it. It must end rejected, its dead-letter copy byte for
 * byte the producer's body.
 */
export const drawBulkyEvents = (seed: number, startMs: number): ScenarioEvent[] => {
  const random = streamFor(seed, "bulky");
  if (random() >= BULKY_RUN_SHARE) return [];
  const eventId = `evt-${seed}-bulky`;
  const body = bulkyEnvelopeBody({
    eventId,
    target: { type: "http", url: "https://receiver.example.com/hooks/bulky" },
  });
  const parsed = parseEnvelope(body);
  if (!parsed.ok) throw new Error(`bulky envelope is invalid: ${JSON.stringify(parsed.problems)}`);
  return [
    {
      envelope: parsed.envelope,
      body,
      submitAtMs: startMs + randomInt(random, 0, 30_000),
      weights: REFUSES,
    },
  ];
};

/** The receiver every honest HTTP event of a run goes to (its limits and breaker are shared). */
const SHARED_ORIGIN = "https://receiver.example.com";
/** A healthy receiver slower than the hostile producer's timeouts: its breaker must stay closed. */
export const SLOW_ORIGIN = "https://slow.example.com";
/** Events of each shared-target move per run: more than the sensitive breakers' minimum calls. */
const SHARED_TARGET_EVENTS = 6;
/** The hostile producer's events land together, within this long: one breaker window, at once. */
const SHARED_TARGET_BURST_MS = 1_000;

/**
 * The hostile producer's own events of a run (from a stream of their own, so the other draws stay
 * as they were): short-timeout calls to the slow, healthy receiver, and calls to the shared
 * receiver under other spellings of its host, in a burst at a drawn moment. The shared receiver
 * is slow for them too, so that they overlap the honest calls in flight.
 */
export const drawSharedTargetEvents = (seed: number, startMs: number): ScenarioEvent[] => {
  const random = streamFor(seed, "shared-target-moves");
  const burstAtMs = startMs + randomInt(random, 0, 30_000);
  return sharedTargetEvents({
    idPrefix: `evt-${seed}-hostile`,
    count: SHARED_TARGET_EVENTS,
    slowOrigin: SLOW_ORIGIN,
    sharedOrigin: SHARED_ORIGIN,
  }).map(({ envelope }) => ({
    envelope,
    submitAtMs: burstAtMs + randomInt(random, 0, SHARED_TARGET_BURST_MS),
    weights: { [Behaviour.SLOW]: 1 },
  }));
};
