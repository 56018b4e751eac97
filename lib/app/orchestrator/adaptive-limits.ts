import { type LearnedLimit, learnedLimitOf } from "../../core/adaptive-engagement.js";
import type { AdaptiveLimitSettings, LimitObservation } from "../../core/adaptive-limit.js";
import type { Log } from "../../core/observability.js";
import type { TargetStateStore } from "../../core/ports.js";
import type { Clock, RandomSource } from "../../core/random.js";
import { admitAdaptive } from "./adaptive-limits/admission.js";
import type { AdaptiveContext, LearnedTarget } from "./adaptive-limits/learned-targets.js";
import { hearOthers, observe } from "./adaptive-limits/observation.js";
import { createLearnedLimitPublisher } from "./learned-limit-publisher.js";
import type { LimitAdmission } from "./target-limits.js";

/*
 * Each target held, on this instance, to the pace its calls say it can take (issue #35): the
 * adaptive limit of lib/core/adaptive-limit.ts, learned from this instance's calls and enforced
 * on them, in memory. No I/O at all: a healthy target is admitted exactly as without it.
 *
 * Enforced per instance on purpose. The controller cuts from the rate it saw sent, and what one
 * instance sees is its own calls: enforcing that cut through the shared counter would cut N
 * instances' sum N times too deep. Held locally, each instance is one AIMD flow, and N flows
 * cutting by the same factor on the same overload cut their sum by it (docs/design-notes.md,
 * "Adaptive per-target limits (#35)").
 *
 * When a limit holds calls back and what operators are told is lib/core/adaptive-engagement.ts;
 * the admission and the learning over this instance's memory are in ./adaptive-limits/.
 */

/** Targets whose limits one instance remembers; the least recently called is forgotten first. */
const MAX_LEARNED_TARGETS = 1_000;

/** One instance's adaptive limits. */
export interface AdaptiveLimiter {
  /** Whether a call to `key` may start now, as far as its learned limit goes. */
  admit(key: string): LimitAdmission;
  /** Teaches `key`'s limit what a call said, or that its breaker changed state. */
  observe(key: string, observation: LimitObservation): void;
  /** The targets whose limit is below its ceiling or paused, for operators. */
  engaged(): readonly LearnedLimit[];
}

export interface AdaptiveLimiterDeps {
  readonly settingsFor: (key: string) => AdaptiveLimitSettings;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly log: Log;
  /** Default {@link MAX_LEARNED_TARGETS}. */
  readonly maxTargets?: number | undefined;
  /**
   * Where the learned limits are written for operators, and this instance's id there; none: they
   * stay in memory (lib/app/orchestrator/learned-limit-publisher.ts).
   */
  readonly publish?:
    | {
        readonly store: Pick<TargetStateStore, "writeLearnedLimit">;
        readonly instanceId: string;
      }
    | undefined;
}

/**
 * Limits learned and held in this instance's memory. Turned-away calls are deferred, as the
 * declared limits' are: no attempt spent, the deadline respected (the gate's business).
 */
export const createAdaptiveLimiter = (deps: AdaptiveLimiterDeps): AdaptiveLimiter => {
  const { settingsFor, clock, log } = deps;
  const maxTargets = deps.maxTargets ?? MAX_LEARNED_TARGETS;
  const targets = new Map<string, LearnedTarget>();
  const learnedOf = (key: string, nowMs: number): LearnedLimit | undefined => {
    const target = targets.get(key);
    return target && learnedLimitOf(key, target.limit, nowMs, settingsFor(key));
  };
  const publisher =
    deps.publish &&
    createLearnedLimitPublisher({
      ...deps.publish,
      clock,
      log,
      maxTargets,
      heard: (key, others) => hearOthers({ targets, clock, settingsFor, log }, key, others),
      current: (key) => {
        const learned = learnedOf(key, clock());
        if (learned === undefined) return undefined;
        const { callsPerSecond, ceilingPerSecond, maxConcurrentCalls, reason, changedAtMs } =
          learned;
        const refusals = targets.get(key)?.limit.noise?.tracks;
        return {
          callsPerSecond,
          ceilingPerSecond,
          maxConcurrentCalls,
          reason,
          changedAtMs,
          ...(refusals === undefined ? {} : { refusals }),
        };
      },
    });
  const context: AdaptiveContext = { ...deps, maxTargets, targets, publisher };
  return {
    admit: (key) => admitAdaptive(context, key),
    observe: (key, observation) => observe(context, key, observation),
    engaged: () => {
      const nowMs = clock();
      return [...targets.keys()].flatMap((key) => learnedOf(key, nowMs) ?? []);
    },
  };
};
