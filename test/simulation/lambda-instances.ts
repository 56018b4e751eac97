import {
  type AdaptiveLimiter,
  createAdaptiveLimiter,
} from "../../lib/app/orchestrator/adaptive-limits.js";
import {
  createTargetBreakers,
  type TargetBreakers,
} from "../../lib/app/orchestrator/target-breakers.js";
import {
  createTargetLimiter,
  type TargetLimiter,
} from "../../lib/app/orchestrator/target-limits.js";
import { adaptiveSettingsFor } from "../../lib/core/adaptive-limit.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import { silentLog } from "../../lib/core/observability.js";
import type { TargetLimitsStore, TargetStateStore } from "../../lib/core/ports.js";
import type { Process } from "./faults.js";
import { faultyTargetLimits, faultyTargetState } from "./faulty-ports.js";
import type { SimulationWorld } from "./simulation-world.js";

/*
 * A Lambda instance keeps its breakers' cache and its limiter's count of held slots from one
 * invocation to the next, until it crashes (then its id changes); each invocation's calls go
 * through that invocation's faults.
 */

interface Instance {
  readonly breakers: TargetBreakers | undefined;
  readonly limits: TargetLimiter | undefined;
  readonly adaptive: AdaptiveLimiter | undefined;
}

/** The instances of one run, by worker id. */
export type LambdaInstances = (worker: string, process: Process) => Instance;

const newInstance = (
  world: SimulationWorld,
  worker: string,
  invocation: { process: Process },
): Instance => {
  const clock = () => invocation.process.clock();
  // Looked up on each call: the store reaches the table through the current invocation's faults.
  const state = (): TargetStateStore => faultyTargetState(world, invocation.process);
  const limitsStore = (): TargetLimitsStore => faultyTargetLimits(world, invocation.process);
  const { breakers: settings, limits, adaptive } = world.options;
  const minCountedTimeoutMs = (settings ?? DEFAULT_BREAKER_SETTINGS).minCountedTimeoutMs;
  return {
    breakers:
      settings === undefined
        ? undefined
        : createTargetBreakers({
            store: {
              countFailure: (request) => state().countFailure(request),
              replace: (request) => state().replace(request),
              addDeferrals: (key, count, nowMs) => state().addDeferrals(key, count, nowMs),
              get: (key) => state().get(key),
              list: (limit) => state().list(limit),
              writeLearnedLimit: (write) => state().writeLearnedLimit(write),
            },
            settings,
            clock,
            log: silentLog,
          }),
    limits:
      limits === undefined
        ? undefined
        : createTargetLimiter({
            store: {
              takeSlot: (request) => limitsStore().takeSlot(request),
              releaseSlot: (key, slot, holder) => limitsStore().releaseSlot(key, slot, holder),
              countCall: (key, windowStartMs, nowMs, calls) =>
                limitsStore().countCall(key, windowStartMs, nowMs, calls),
            },
            limitsFor: () => limits,
            clock,
            random: world.orchestratorRandom,
            log: silentLog,
            instanceId: worker,
          }),
    adaptive:
      adaptive === true
        ? createAdaptiveLimiter({
            settingsFor: () => adaptiveSettingsFor(limits ?? {}, minCountedTimeoutMs),
            clock,
            random: world.orchestratorRandom,
            log: silentLog,
          })
        : undefined,
  };
};

/** The run's instances: a worker's instance is made on its first invocation and kept. */
export const lambdaInstances = (world: SimulationWorld): LambdaInstances => {
  const known = new Map<string, { instance: Instance; invocation: { process: Process } }>();
  return (worker, process) => {
    const found = known.get(worker);
    if (found !== undefined) {
      found.invocation.process = process;
      return found.instance;
    }
    const invocation = { process };
    const instance = newInstance(world, worker, invocation);
    known.set(worker, { instance, invocation });
    return instance;
  };
};
