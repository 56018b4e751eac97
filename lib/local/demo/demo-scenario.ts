import type { PolicyOverride } from "../../core/policy.js";
import { randomInt, seededRandom } from "../../core/random.js";

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
 * dead-lettering, redrive) plays out in about a minute.
 */
export const DEMO_POLICY = {
  maxAttempts: 4,
  baseDelaySeconds: 1,
  multiplier: 2,
  maxDelaySeconds: 8,
  jitter: "full",
} as const satisfies PolicyOverride;

/**
 * Per-attempt timeout of the slow events, which answer their first call after it. Other events
 * keep the default timeout: on a busy machine a tight one would turn healthy calls into timeouts
 * and make the outcome depend on load instead of the seed.
 */
export const SLOW_TIMEOUT_MS = 2_000;
/** How late a slow answer comes, beyond the timeout. */
export const SLOW_EXTRA_MS = 2_000;
/** The Retry-After the rate-limited behaviour sends. */
export const RETRY_AFTER_SECONDS = 2;

/** One event of the demo: its id and what the receiver will do with it. */
export interface DemoEvent {
  readonly eventId: string;
  readonly index: number;
  readonly behaviour: Behaviour;
  /** For flaky events, how many calls fail before one succeeds (always within the budget). */
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
    const failures = randomInt(random, 1, DEMO_POLICY.maxAttempts - 1);
    return {
      eventId: `demo-${runTag}-${String(index + 1).padStart(width, "0")}`,
      index,
      behaviour,
      failures,
    };
  });
};

/** What the receiver answers to one call. */
export interface DemoResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Milliseconds to wait before answering. */
  readonly delayMs?: number;
}

/**
 * The receiver's answer to the `call`-th call (from 1) for an event: a function of the event and
 * the call count only, never of time, so a seed gives the same per-status counts run to run.
 */
export const respond = (event: DemoEvent, call: number): DemoResponse => {
  switch (event.behaviour) {
    case Behaviour.HEALTHY:
      return { status: 200 };
    case Behaviour.FLAKY:
      return { status: call <= event.failures ? 503 : 200 };
    case Behaviour.RATE_LIMITED:
      return call === 1
        ? { status: 429, headers: { "retry-after": String(RETRY_AFTER_SECONDS) } }
        : { status: 200 };
    case Behaviour.SLOW:
      return call === 1
        ? { status: 200, delayMs: SLOW_TIMEOUT_MS + SLOW_EXTRA_MS }
        : { status: 200 };
    case Behaviour.BROKEN:
      return { status: 400 };
    case Behaviour.DOWN_THEN_RECOVERING:
      // Down for the whole first budget, so the event dead-letters; up for the redriven attempt.
      return { status: call <= DEMO_POLICY.maxAttempts ? 503 : 200 };
  }
};
