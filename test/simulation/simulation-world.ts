import { CountingMetrics } from "../../lib/core/observability.js";
import type { TargetLimitsStore, TargetStateStore } from "../../lib/core/ports.js";
import { randomInt, seededRandom } from "../../lib/core/random.js";
import { streamFor } from "../support/random-streams.js";
import { FaultPlan, FirstCallFault, type Process } from "./faults.js";
import { createMemoryEventStore, type MemoryEventStore } from "./memory-event-store.js";
import { MemoryQueue, StaleReceipt } from "./memory-queue.js";
import { createMemoryTargetLimitsStore } from "./memory-target-limits-store.js";
import { createMemoryTargetStateStore } from "./memory-target-state-store.js";
import {
  bodyOf,
  drawBulkyEvents,
  drawScenario,
  drawSharedTargetEvents,
  type ScenarioEvent,
} from "./scenario.js";
import { VirtualScheduler } from "./scheduler.js";
import { createSimulatedAdversary, type SimulatedAdversary } from "./simulated-adversary.js";
import { SimulatedTarget } from "./simulated-target.js";
import { SIMULATION_TIMINGS, type SimulationOptions } from "./simulation-options.js";
import { newTrace, type SimulationTrace } from "./trace.js";

/*
 * Everything one run shares: the virtual clock, the queues and stores, the drawn scenario, the
 * simulated target, the fault plan and the trace the invariants are checked on. The steps of a
 * run (faulty-ports.ts, lambda-instances.ts, event-source.ts, simulation.ts) all read this.
 */

export const START_MS = Date.UTC(2030, 0, 1);
/** Share of events whose first result write after a sent retry or dead-letter copy is refused. */
const RESULT_WRITE_FAULT_SHARE = 0.15;

/** The options with their defaults filled in. */
interface RunSettings {
  readonly events: number;
  readonly workers: number;
  readonly faultRate: number;
  readonly skewBoundMs: number;
  readonly leaseMarginMs: number;
  readonly functionTimeoutMs: number;
  readonly visibilityTimeoutSeconds: number;
  readonly batchSize: number;
  readonly messageConcurrency: number;
  readonly maxReceiveCount: number;
  readonly hopSeconds: number;
}

const settingsOf = (options: SimulationOptions): RunSettings => ({
  events: options.events ?? 20,
  workers: options.workers ?? 3,
  faultRate: options.faultRate ?? 0.02,
  skewBoundMs: options.skewBoundMs ?? 500,
  leaseMarginMs: options.leaseMarginMs ?? SIMULATION_TIMINGS.leaseMarginMs,
  functionTimeoutMs: options.functionTimeoutMs ?? SIMULATION_TIMINGS.functionTimeoutMs,
  visibilityTimeoutSeconds:
    options.visibilityTimeoutSeconds ?? SIMULATION_TIMINGS.visibilityTimeoutSeconds,
  batchSize: options.batchSize ?? 10,
  messageConcurrency: options.messageConcurrency ?? 3,
  maxReceiveCount: options.maxReceiveCount ?? SIMULATION_TIMINGS.maxReceiveCount,
  // Far below the deployed 900 s, so that a run's delays of a few minutes need hops.
  hopSeconds: options.hopSeconds ?? 20,
});

/** A process with a promise that settles when it crashes. */
export type StoppableProcess = Process & { readonly stopped: Promise<void> };

export interface SimulationWorld {
  readonly seed: number;
  readonly options: SimulationOptions;
  readonly settings: RunSettings;
  readonly sched: VirtualScheduler;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** One hop's network latency. */
  latency(): number;
  /** The orchestrators' and limiters' shared random stream. */
  readonly orchestratorRandom: () => number;
  readonly ingress: MemoryQueue;
  readonly deadLetterQueue: MemoryQueue;
  readonly store: MemoryEventStore;
  readonly targetState: TargetStateStore;
  readonly targetLimits: TargetLimitsStore;
  readonly scenario: readonly ScenarioEvent[];
  readonly bodies: ReadonlyMap<string, string>;
  readonly adversary: SimulatedAdversary;
  readonly resultWriteFault: FirstCallFault;
  readonly target: SimulatedTarget;
  readonly trace: SimulationTrace;
  readonly faults: FaultPlan;
  readonly metrics: CountingMetrics;
  /** Events recorded as scheduled (first seen before their `notBefore`). */
  readonly scheduledIds: Set<string>;
  /** A fresh process (a Lambda invocation or an operator's run) whose clock is off by `skewMs`. */
  newProcess(worker: string, skewMs: number): StoppableProcess;
  /** A clock skew within the run's bound. */
  drawSkew(random: () => number): number;
}

/** Builds a run's world from its seed. Deterministic. */
export const createSimulationWorld = (options: SimulationOptions): SimulationWorld => {
  const seed = options.seed;
  const o = settingsOf(options);
  // Independent streams, so that changing one concern does not reshuffle the others.
  const scenarioRandom = seededRandom(seed);
  const faultRandom = seededRandom(seed ^ 0x5bd1e995);
  const latencyRandom = seededRandom(seed ^ 0x27d4eb2f);
  const targetRandom = seededRandom(seed ^ 0x165667b1);
  const orchestratorRandom = seededRandom(seed ^ 0x61c88647);
  const queueRandom = seededRandom(seed ^ 0x7feb352d);

  const sched = new VirtualScheduler(START_MS);
  const now = () => sched.now();
  const sleep = (ms: number) => sched.sleep(ms);
  const latency = () => randomInt(latencyRandom, 1, 40);

  const deadLetterQueue = new MemoryQueue({ name: "dlq", clock: now, random: queueRandom });
  const ingress = new MemoryQueue({
    name: "ingress",
    clock: now,
    staleReceipt: StaleReceipt.AS_SQS,
    maxReceiveCount: o.maxReceiveCount,
    deadLetterQueue,
    duplicate: () => faultRandom() < o.faultRate,
    random: queueRandom,
  });
  const store = createMemoryEventStore({ ignoreLeases: options.brokenStore === "ignore_leases" });
  const scenario = [
    ...drawScenario(
      {
        seed,
        events: o.events,
        startMs: START_MS,
        faultRate: o.faultRate,
        lambdaTargets: options.lambdaTargets ?? false,
      },
      scenarioRandom,
    ),
    ...drawBulkyEvents(seed, START_MS),
    ...drawSharedTargetEvents(seed, START_MS),
  ];
  const weights = new Map(scenario.map((e) => [e.envelope.eventId, e.weights]));
  const target = new SimulatedTarget({
    now,
    sleep,
    random: targetRandom,
    weightsFor: (id) => weights.get(id),
    bodies: streamFor(seed, "receiver-bodies"),
  });
  const trace = newTrace(target.calls);
  let processes = 0;
  const newProcess = (worker: string, skewMs: number): StoppableProcess => {
    let crashed = false;
    let signal: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      signal = resolve;
    });
    return {
      id: processes++,
      worker,
      clock: () => sched.now() + skewMs,
      get crashed() {
        return crashed;
      },
      crash: () => {
        if (crashed) return;
        crashed = true;
        trace.crashes += 1;
        signal();
      },
      stopped,
    };
  };
  return {
    seed,
    options,
    settings: o,
    sched,
    now,
    sleep,
    latency,
    orchestratorRandom,
    ingress,
    deadLetterQueue,
    store,
    targetState: createMemoryTargetStateStore(),
    targetLimits: createMemoryTargetLimitsStore(),
    scenario,
    bodies: new Map(scenario.map((e) => [e.envelope.eventId, bodyOf(e)])),
    adversary: createSimulatedAdversary({
      seed,
      ingress,
      deadLetterQueue,
      now,
      sleep,
      envelopes: new Map(scenario.map((e) => [e.envelope.eventId, e.envelope])),
    }),
    // The failed result write after a sent retry or dead-letter copy: random faults reach it too
    // rarely to matter.
    resultWriteFault: new FirstCallFault({
      share: RESULT_WRITE_FAULT_SHARE,
      randomFor: (eventId) => streamFor(seed, "result-write-fault", eventId),
    }),
    target,
    trace,
    faults: new FaultPlan({ random: faultRandom, rate: o.faultRate, sleep, latency }),
    metrics: new CountingMetrics(),
    scheduledIds: new Set<string>(),
    newProcess,
    drawSkew: (random) => randomInt(random, -o.skewBoundMs, o.skewBoundMs),
  };
};
