import CircuitBreaker from "opossum";
import type { BreakerSettings } from "../../lib/core/circuit-breaker.js";
import {
  BASELINE_CALL_TIMEOUT_MS,
  type BenchEnvelope,
  type Contender,
  postEnvelope,
} from "../contender.js";
import { createPowertoolsContender, type TargetCaller } from "./powertools.js";

/**
 * opossum's options for the same breaker as Ricochet's `settings`, side by side:
 *
 * | Ricochet (`BreakerSettings`)   | opossum                                                     |
 * | ------------------------------ | ----------------------------------------------------------- |
 * | `failureRateThreshold` 0.5     | `errorThresholdPercentage` 50 (opens above it, not at it)   |
 * | `minimumCalls`                 | `volumeThreshold`                                           |
 * | `windowMs`                     | `rollingCountTimeout` (a rolling window of 10 buckets)      |
 * | `openMs`                       | `resetTimeout`                                              |
 * | `maxOpenMs` (doubling)         | none: every reopening lasts `resetTimeout`                  |
 * | `halfOpenProbes` 1             | one trial call when half-open (fixed)                       |
 * | `probeWaitMs`                  | none: calls during the trial fail at once                   |
 * | `probeTimeoutMs`               | `timeout`, the call timeout, bounds the trial too           |
 * | `releasePerSecond`             | none: once closed, every record visible comes back at once |
 * | state shared by all instances  | in memory, one breaker per execution environment            |
 *
 * `timeoutMs` is the call's own timeout, which opossum also counts as a failure.
 */
export const opossumOptionsFor = (
  settings: BreakerSettings,
  timeoutMs: number,
): CircuitBreaker.Options => ({
  timeout: timeoutMs,
  errorThresholdPercentage: settings.failureRateThreshold * 100,
  volumeThreshold: settings.minimumCalls,
  rollingCountTimeout: settings.windowMs,
  resetTimeout: settings.openMs,
});

/** A call that rejects unless the target answered 2xx: what opossum counts as a failure. */
const callOrThrow = async (envelope: BenchEnvelope): Promise<true> => {
  if (!(await postEnvelope(envelope))) throw new Error("target answered a failure");
  return true;
};

/**
 * What a Powertools team adds when a partner goes down: a circuit breaker per target origin
 * (opossum, the usual Node.js library), kept in the module scope of each execution environment.
 * An open breaker fails the record at once, without a call; its record then stays hidden until
 * the breaker may let a call through again, or for the retry's delay if that is longer (a receive
 * counts against `maxReceiveCount`, so it is not spent sooner than the schedule would).
 */
export const breakerCaller = (settings: BreakerSettings, timeoutMs: number): TargetCaller => {
  const breakers = new Map<
    string,
    { breaker: CircuitBreaker<[BenchEnvelope], true>; openedAt: number }
  >();
  const breakerOf = (envelope: BenchEnvelope) => {
    const origin = new URL(envelope.target.url).origin;
    const known = breakers.get(origin);
    if (known !== undefined) return known;
    const made = {
      breaker: new CircuitBreaker(callOrThrow, opossumOptionsFor(settings, timeoutMs)),
      openedAt: 0,
    };
    made.breaker.on("open", () => {
      made.openedAt = Date.now();
    });
    breakers.set(origin, made);
    return made;
  };
  return {
    call: (envelope) => breakerOf(envelope).breaker.fire(envelope),
    holdSeconds: (envelope) => {
      const { breaker, openedAt } = breakerOf(envelope);
      return breaker.opened ? Math.max(0, openedAt + settings.openMs - Date.now()) / 1000 : 0;
    },
    close: () => {
      for (const { breaker } of breakers.values()) breaker.shutdown();
    },
  };
};

/** Powertools with an opossum breaker per target, its settings those of `settings`. */
export const createPowertoolsBreakerContender = (
  name: string,
  settings: BreakerSettings,
): Contender =>
  createPowertoolsContender(name, {
    caller: (retry) => breakerCaller(settings, retry.timeoutMs ?? BASELINE_CALL_TIMEOUT_MS),
  });
