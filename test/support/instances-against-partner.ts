import {
  type AdaptiveLimiter,
  createAdaptiveLimiter,
} from "../../lib/app/orchestrator/adaptive-limits.js";
import type { CallPermit } from "../../lib/app/orchestrator/target-limits.js";
import type { AdaptiveLimitSettings } from "../../lib/core/adaptive-limit.js";
import { silentLog } from "../../lib/core/observability.js";
import type { AttemptResult } from "../../lib/core/outcome.js";
import { type RandomSource, randomInt } from "../../lib/core/random.js";
import { createMemoryTargetStateStore } from "../simulation/memory-target-state-store.js";
import type { DrivenCall, Partner } from "./simulated-partner.js";

/*
 * Several function instances, each with its own adaptive limiter, sending one target's events
 * in virtual time: the events arrive at a steady demand, SQS hands each (and each deferred one,
 * when its delay ends) to any instance at random, and the partner answers each call after its
 * latency, when the instance that made it learns from the answer. With `shared`, the instances
 * write their learned limits into one target item (the store's in-memory twin) as deployed, and
 * learn from each write what the others hold. How close the instances' learned limits come to
 * each other and to the partner's capacity is what this measures.
 */

const KEY = "http:https://partner.example:443";
const TICK_MS = 10;

/** One run of instances against a partner. */
export interface InstancesRun {
  readonly instances: number;
  readonly partner: Partner;
  /** Events a second arriving for the target. */
  readonly demandPerSecond: number;
  readonly settings: AdaptiveLimitSettings;
  readonly durationMs: number;
  readonly random: RandomSource;
  /** Whether the instances share their learned limits through a target item, as deployed. */
  readonly shared?: boolean;
}

/** One call the instances made, and which made it. */
export interface InstanceCall extends DrivenCall {
  readonly instance: number;
}

/** What a run did: every call, and each instance's limiter at the end. */
export interface InstancesOutcome {
  readonly calls: readonly InstanceCall[];
  readonly limiters: readonly AdaptiveLimiter[];
  /** Events still waiting (deferred, or answered 429 and waiting their retry) at the end. */
  readonly waiting: number;
  /**
   * Once a second, each instance's view of the target's summed rate (its own and what it last
   * heard of the others) against the instances' rates summed then; only seconds in which every
   * instance holds the target back.
   */
  readonly views: readonly {
    readonly atMs: number;
    readonly views: number[];
    readonly summed: number;
  }[];
}

interface Ended {
  readonly endMs: number;
  readonly instance: number;
  readonly result: AttemptResult;
  readonly permit: CallPermit;
}

/** Runs `run` from time 0 and returns what was called; a 429'd event is retried after 1 s. */
export const runInstancesAgainstPartner = async (run: InstancesRun): Promise<InstancesOutcome> => {
  const time = { nowMs: 0 };
  const store = createMemoryTargetStateStore();
  const limiters = Array.from({ length: run.instances }, (_, instance) =>
    createAdaptiveLimiter({
      settingsFor: () => run.settings,
      clock: () => time.nowMs,
      random: run.random,
      log: silentLog,
      publish: run.shared === true ? { store, instanceId: `i-${instance}` } : undefined,
    }),
  );
  const views: { atMs: number; views: number[]; summed: number }[] = [];
  const calls: InstanceCall[] = [];
  let inFlight: Ended[] = [];
  // Waiting events by the tick they are handed to an instance again: events are alike, so a
  // count per tick is all that needs keeping.
  const due = new Map<number, number>();
  const wait = (atMs: number) => {
    const tick = Math.max(Math.ceil(atMs / TICK_MS), Math.floor(time.nowMs / TICK_MS) + 1);
    due.set(tick, (due.get(tick) ?? 0) + 1);
  };
  let arrivals = 0;
  for (time.nowMs = 0; time.nowMs < run.durationMs; time.nowMs += TICK_MS) {
    const nowMs = time.nowMs;
    // The store's writes settle between ticks: the item answers within 10 ms.
    if (run.shared === true) await new Promise<void>((resolve) => setImmediate(resolve));
    if (nowMs % 1_000 === 0) {
      const seen = viewsOf(limiters);
      if (seen !== undefined) views.push({ atMs: nowMs, ...seen });
    }
    for (const ended of inFlight.filter((e) => e.endMs <= nowMs)) {
      const call = { result: ended.result, timeoutMs: 10_000 };
      limiters[ended.instance]?.observe(KEY, { kind: "call", call });
      void ended.permit.release();
    }
    inFlight = inFlight.filter((e) => e.endMs > nowMs);
    arrivals += (run.demandPerSecond * TICK_MS) / 1_000;
    const tick = Math.floor(nowMs / TICK_MS);
    const ready = due.get(tick) ?? 0;
    due.delete(tick);
    const asks = ready + Math.floor(arrivals);
    arrivals -= Math.floor(arrivals);
    for (let i = 0; i < asks; i += 1) {
      const instance = randomInt(run.random, 0, run.instances - 1);
      const admission = limiters[instance]?.admit(KEY);
      if (admission === undefined) continue;
      if (admission.verdict === "defer") {
        wait(admission.untilMs);
        continue;
      }
      const result = run.partner(nowMs);
      calls.push({ atMs: nowMs, instance, result });
      inFlight.push({
        endMs: nowMs + result.durationMs,
        instance,
        result,
        permit: admission.permit,
      });
      if (result.kind === "response" && result.statusCode === 429) wait(nowMs + 1_000);
    }
  }
  return { calls, limiters, views, waiting: [...due.values()].reduce((a, b) => a + b, 0) };
};

/** Each instance's view of the summed rate, and the sum; undefined unless every one is engaged. */
const viewsOf = (
  limiters: readonly AdaptiveLimiter[],
): { views: number[]; summed: number } | undefined => {
  const learned = limiters.flatMap((limiter) => limiter.engaged());
  if (learned.length < limiters.length) return undefined;
  const summed = learned.reduce((sum, limit) => sum + limit.callsPerSecond, 0);
  const views = learned.map((limit) => limit.summedPerSecond ?? limit.callsPerSecond);
  return { views, summed };
};

/** Each instance's learned rate at the end, calls/s (its ceiling when it never pushed back). */
export const learnedRates = (outcome: InstancesOutcome, ceiling: number): number[] =>
  outcome.limiters.map((limiter) => limiter.engaged()[0]?.callsPerSecond ?? ceiling);
