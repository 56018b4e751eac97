import type { PolicyOverride } from "../../core/policy.js";
import { randomInt, seededRandom } from "../../core/random.js";
import { EventStatus } from "../../core/status.js";

/** How the demo receiver treats one event. */
export const Behaviour = {
  HEALTHY: "healthy",
  FLAKY: "flaky",
  RATE_LIMITED: "rate_limited",
  SLOW: "slow",
  BROKEN: "broken",
  DOWN_THEN_RECOVERING: "down_then_recovering",
} as const;
export type Behaviour = (typeof Behaviour)[keyof typeof Behaviour];

/**
 * The demo's policy, in seconds instead of the deployed minutes, so the whole story (retries,
 * dead-lettering, redrive) plays out in seconds (about 15 s for the default 12 events).
 */
export const DEMO_POLICY = {
  maxAttempts: 4,
  baseDelaySeconds: 1,
  multiplier: 2,
  maxDelaySeconds: 8,
  jitter: "full",
} as const satisfies PolicyOverride;

/*
 * No demo event sets a timeout of its own: every call gets the default (DEFAULT_TIMEOUT_MS,
 * 10 s). On a busy 2-core machine a loopback answer was measured taking over 2 s from the start
 * of the call; with a tight timeout, immediate answers turned into timeouts and the counts
 * depended on load instead of the seed. The slow behaviour's first call is therefore never
 * answered at all, so it times out whatever the load, and its later calls are as safe as any.
 */
/** The Retry-After the rate-limited behaviour sends. */
const RETRY_AFTER_SECONDS = 2;

/** One event of the demo: its id and what the receiver will do with it. */
export interface DemoEvent {
  readonly eventId: string;
  readonly index: number;
  readonly behaviour: Behaviour;
  /**
   * For flaky events, how many calls fail before one succeeds: at most `maxAttempts - 2`, so one
   * more attempt than the story needs is always left for a call that times out under load.
   */
  readonly failures: number;
}

/** Relative frequency of each behaviour among the events after the first of each kind. */
const WEIGHTS: readonly (readonly [Behaviour, number])[] = [
  [Behaviour.HEALTHY, 40],
  [Behaviour.FLAKY, 20],
  [Behaviour.RATE_LIMITED, 10],
  [Behaviour.SLOW, 10],
  [Behaviour.BROKEN, 10],
  [Behaviour.DOWN_THEN_RECOVERING, 10],
];
const TOTAL_WEIGHT = WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
const ALL_BEHAVIOURS = WEIGHTS.map(([behaviour]) => behaviour);

const pick = (draw: number): Behaviour => {
  let rest = draw;
  for (const [behaviour, weight] of WEIGHTS) {
    if (rest < weight) return behaviour;
    rest -= weight;
  }
  return Behaviour.HEALTHY;
};

/**
 * The demo's events. Which behaviour an event gets depends on the seed and its position only, so
 * a seed always tells the same story; the first events show each behaviour once. `runTag` keeps
 * the ids of two runs apart (a LocalStack keeps its table between runs).
 */
export const planDemo = (count: number, seed: number, runTag: string): DemoEvent[] => {
  const random = seededRandom(seed);
  const width = String(Math.max(count, 1)).length;
  return Array.from({ length: count }, (_, index) => {
    const behaviour = ALL_BEHAVIOURS[index] ?? pick(randomInt(random, 0, TOTAL_WEIGHT - 1));
    const failures = randomInt(random, 1, DEMO_POLICY.maxAttempts - 2);
    return {
      eventId: `demo-${runTag}-${String(index + 1).padStart(width, "0")}`,
      index,
      behaviour,
      failures,
    };
  });
};

/** What the receiver does with one call: answer it, or hold it until the caller gives up. */
export type DemoResponse =
  | {
      readonly kind: "answer";
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly kind: "no_answer" };

const answer = (status: number, headers?: Readonly<Record<string, string>>): DemoResponse =>
  headers === undefined ? { kind: "answer", status } : { kind: "answer", status, headers };

/**
 * The receiver's answer to the `call`-th call (from 1) for an event: a function of the event and
 * the call count only, never of time, so a seed gives the same per-status counts run to run.
 */
export const respond = (event: DemoEvent, call: number): DemoResponse => {
  switch (event.behaviour) {
    case Behaviour.HEALTHY:
      return answer(200);
    case Behaviour.FLAKY:
      return answer(call <= event.failures ? 503 : 200);
    case Behaviour.RATE_LIMITED:
      return call === 1 ? answer(429, { "retry-after": String(RETRY_AFTER_SECONDS) }) : answer(200);
    case Behaviour.SLOW:
      return call === 1 ? { kind: "no_answer" } : answer(200);
    case Behaviour.BROKEN:
      return answer(400);
    case Behaviour.DOWN_THEN_RECOVERING:
      // Down for the whole first budget, so the event dead-letters; up for the redriven attempt.
      return answer(call <= DEMO_POLICY.maxAttempts ? 503 : 200);
  }
};

/** How an event's story ends, from its behaviour alone: what a correct run must show. */
export interface ExpectedEnd {
  readonly status: typeof EventStatus.DELIVERED | typeof EventStatus.REJECTED;
  /** Whether the demo redrives it from the dead-letter queue on the way. */
  readonly redriven: boolean;
}

export const expectedEnd = (event: DemoEvent): ExpectedEnd => ({
  status: event.behaviour === Behaviour.BROKEN ? EventStatus.REJECTED : EventStatus.DELIVERED,
  redriven: event.behaviour === Behaviour.DOWN_THEN_RECOVERING,
});
