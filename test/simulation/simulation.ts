import { createOrchestrator } from "../../lib/app/orchestrator.js";
import { createTargetBreakers, type TargetBreakers } from "../../lib/app/target-breakers.js";
import { createTargetLimiter, type TargetLimiter } from "../../lib/app/target-limits.js";
import { MetricName } from "../../lib/contract/metric-names.js";
import { type BreakerSettings, DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import type { Envelope } from "../../lib/core/envelope.js";
import { parseEnvelope } from "../../lib/core/envelope.js";
import { StoreUnavailableError } from "../../lib/core/errors.js";
import { CountingMetrics, type Log, silentLog } from "../../lib/core/observability.js";
import { DEFAULT_POLICY } from "../../lib/core/policy.js";
import type { TargetLimitsStore, TargetStateStore } from "../../lib/core/ports.js";
import {
  type DeadLetterQueue,
  type DeliveryTarget,
  type EventStore,
  type IngressQueue,
  MessageOrigin,
  type ReceivedMessage,
} from "../../lib/core/ports.js";
import { randomInt, seededRandom } from "../../lib/core/random.js";
import { EventStatus } from "../../lib/core/status.js";
import type { TargetLimits } from "../../lib/core/target-settings.js";
import type { AdversaryMark } from "../support/adversarial-producer.js";
import { type DeployedTimings, deployedTimings } from "../support/deployed-timings.js";
import { observeStore } from "../support/observed-store.js";
import { streamFor } from "../support/random-streams.js";
import { FaultPlan, FirstCallFault, hang, type Process } from "./faults.js";
import { checkInvariants, Invariant, type Violation } from "./invariants.js";
import { createMemoryEventStore } from "./memory-event-store.js";
import {
  MemoryQueue,
  memoryDeadLetterQueue,
  memoryIngressQueue,
  StaleReceipt,
} from "./memory-queue.js";
import { createMemoryTargetLimitsStore } from "./memory-target-limits-store.js";
import { createMemoryTargetStateStore } from "./memory-target-state-store.js";
import { bodyOf, drawBulkyEvents, drawScenario } from "./scenario.js";
import { RunEnd, VirtualScheduler } from "./scheduler.js";
import { createSimulatedAdversary } from "./simulated-adversary.js";
import { drawControls, runControls } from "./simulated-controls.js";
import { OPERATOR, operatorRedrive } from "./simulated-operator.js";
import { SimulatedTarget, timeoutOf } from "./simulated-target.js";
import { type InvocationTrace, keyOf, newTrace } from "./trace.js";

/** How the orchestrator's log line for a deferral starts (lib/app/orchestrator.ts, `defer`). */
const DEFERRAL_LOG_PREFIX = "event deferred";

/**
 * The timings every run uses unless told otherwise: the deployed ones, unscaled (virtual time
 * costs nothing), so a fault costs what it would cost in a deployment.
 */
export const SIMULATION_TIMINGS: DeployedTimings = deployedTimings();

/** The knobs of one run. Timing defaults are {@link SIMULATION_TIMINGS}. */
export interface SimulationOptions {
  readonly seed: number;
  readonly events?: number;
  readonly workers?: number;
  /** Base probability of a fault at each step. */
  readonly faultRate?: number;
  /** Each worker's clock is off true time by up to this much, either way. */
  readonly skewBoundMs?: number;
  /**
   * Added to the target timeout to make the lease. It must cover twice the skew bound (the
   * claimer's clock may be behind and the next claimer's ahead) plus the store's answer and the
   * start of the call; the deployed 5 s covers ±500 ms of skew and the simulated latencies
   * (≤ 40 ms a hop).
   */
  readonly leaseMarginMs?: number;
  readonly functionTimeoutMs?: number;
  readonly visibilityTimeoutSeconds?: number;
  readonly batchSize?: number;
  readonly messageConcurrency?: number;
  readonly maxReceiveCount?: number;
  readonly hopSeconds?: number;
  /** Let an operator cancel and replay some events during the run (default on). */
  readonly controls?: boolean;
  /** Run a redrive of the dead-lettered events once the first wave is over. */
  readonly redrive?: boolean;
  /** Send some events to Lambda targets, whose timeout is fixed at 60 s. */
  readonly lambdaTargets?: boolean;
  /** A deliberately broken store, for the simulation's self-test. */
  readonly brokenStore?: "ignore_leases";
  /** Turn on the targets' circuit breakers with these settings (every event shares one target). */
  readonly breakers?: BreakerSettings;
  /** Hold the (one) target to these limits, with or without breakers. */
  readonly limits?: TargetLimits;
}

/** Limits every event's shared target is held to under `--limits`: tight, so they bind often. */
export const TIGHT_LIMITS: TargetLimits = { maxConcurrentCalls: 2, maxCallsPerSecond: 4 };

/**
 * Breakers that trip on a few failures and reopen soon: every event of a run shares one target,
 * so these open, probe, close and reopen many times per run, which is what the checks need.
 */
export const SENSITIVE_BREAKERS: BreakerSettings = {
  ...DEFAULT_BREAKER_SETTINGS,
  minimumCalls: 3,
  failureRateThreshold: 0.3,
  openMs: 5_000,
  maxOpenMs: 40_000,
  probeWaitMs: 2_000,
};

export interface SimulationResult {
  readonly seed: number;
  readonly events: number;
  readonly delivered: number;
  readonly rejected: number;
  readonly deadLettered: number;
  readonly crashes: number;
  readonly calls: number;
  readonly redriven: number;
  /** Hostile messages the adversarial producer sent, by kind. */
  readonly hostile: Readonly<Record<AdversaryMark, number>>;
  /** Result writes refused once after their retry was sent (see {@link FirstCallFault}). */
  readonly resultWriteFaults: number;
  /** Events whose body was the largest valid envelope, full of numbers. */
  readonly bulky: number;
  /** Events sent back for later because their target's breaker was open. */
  readonly deferred: number;
  /** Events recorded as scheduled: first seen before their `notBefore`. */
  readonly scheduled: number;
  /** Events an operator cancelled, and replays of delivered events, during the run. */
  readonly cancelled: number;
  /** Cancels by the status they found the event in (scheduled, pending, retry_scheduled). */
  readonly cancelledFrom: Readonly<Record<string, number>>;
  /** Cancels refused while an attempt was in flight (the operator asked again later). */
  readonly cancelsRefusedInFlight: number;
  readonly replayed: number;
  /** Copies the queue's native redrive parked raw (no Ricochet summary) before the operator ran. */
  readonly parkedRaw: number;
  readonly steps: number;
  readonly virtualSeconds: number;
  readonly violations: Violation[];
}

const START_MS = Date.UTC(2030, 0, 1);
/** Share of events whose first result write after a sent retry or dead-letter copy is refused. */
const RESULT_WRITE_FAULT_SHARE = 0.15;
/** A run that has not settled after this much virtual time is stuck. */
const VIRTUAL_LIMIT_MS = 3 * 24 * 3600 * 1000;
const LONG_POLL_MS = 20_000;

/** Runs one seeded simulation to quiescence and checks every guarantee. Deterministic. */
export const runSimulation = async (options: SimulationOptions): Promise<SimulationResult> => {
  const seed = options.seed;
  const o = {
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
  };
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
  const targetState = createMemoryTargetStateStore();
  const targetLimits = createMemoryTargetLimitsStore();
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
  ];
  const weights = new Map(scenario.map((e) => [e.envelope.eventId, e.weights]));
  const bodies = new Map(scenario.map((e) => [e.envelope.eventId, bodyOf(e)]));
  const adversary = createSimulatedAdversary({
    seed,
    ingress,
    now,
    sleep,
    envelopes: new Map(scenario.map((e) => [e.envelope.eventId, e.envelope])),
  });
  // The failed result write after a sent retry or dead-letter copy: random faults reach it too
  // rarely to matter.
  const resultWriteFault = new FirstCallFault({
    share: RESULT_WRITE_FAULT_SHARE,
    randomFor: (eventId) => streamFor(seed, "result-write-fault", eventId),
  });
  const target = new SimulatedTarget({
    now,
    sleep,
    random: targetRandom,
    weightsFor: (id) => weights.get(id),
  });
  const trace = newTrace(target.calls);
  const faults = new FaultPlan({ random: faultRandom, rate: o.faultRate, sleep, latency });
  const metrics = new CountingMetrics();
  const scheduledIds = new Set<string>();

  let processes = 0;
  let active = 0;
  let submitted = 0;
  let finished = false;

  const newProcess = (
    worker: string,
    skewMs: number,
  ): Process & { readonly stopped: Promise<void> } => {
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

  const leaseMsOf = (envelope: Envelope): number => timeoutOf(envelope) + o.leaseMarginMs;

  const faultyTargetState = (process: Process): TargetStateStore => ({
    countFailure: (request) =>
      faults.call(process, "breakers.countFailure", () => targetState.countFailure(request)),
    replace: (request) =>
      faults.call(process, "breakers.replace", () => targetState.replace(request)),
    addDeferrals: (key, count, nowMs) =>
      faults.call(process, "breakers.addDeferrals", () =>
        targetState.addDeferrals(key, count, nowMs),
      ),
    get: (key) => targetState.get(key),
    list: (limit) => targetState.list(limit),
  });
  const faultyTargetLimits = (process: Process): TargetLimitsStore => ({
    takeSlot: (request) =>
      faults.call(process, "limits.takeSlot", () => targetLimits.takeSlot(request)),
    releaseSlot: (key, slot, holder) =>
      faults.call(process, "limits.releaseSlot", () => targetLimits.releaseSlot(key, slot, holder)),
    countCall: (key, windowStartMs, nowMs) =>
      faults.call(process, "limits.countCall", () =>
        targetLimits.countCall(key, windowStartMs, nowMs),
      ),
  });
  const portsFor = (process: Process, invocation?: InvocationTrace) => {
    const ingressPort = memoryIngressQueue(ingress);
    const dlqPort = memoryDeadLetterQueue(deadLetterQueue);
    const observed = observeStore(store, {
      onClaimed: (request, result) => {
        trace.claims.push({
          eventId: request.eventId,
          attempt: result.record.attempts,
          generation: request.generation,
          worker: process.worker,
          invocation: process.id,
          trueAtMs: now(),
          leaseExpiresAt: result.record.leaseExpiresAt ?? 0,
          takeover: result.takeover,
        });
        invocation?.claimed.push(keyOf(request.eventId, request.generation));
      },
      onRecorded: (request) => adversary.observe(request.eventId, request.status),
    });
    const faultyStore: EventStore = {
      claim: (request) => faults.call(process, "store.claim", () => observed.claim(request)),
      recordResult: (request) =>
        faults.call(process, "store.recordResult", async () => {
          if (request.status !== EventStatus.DELIVERED && resultWriteFault.strikes(request.eventId))
            throw new StoreUnavailableError(
              "result write after a sent retry or dead-letter copy refused (simulated)",
            );
          return observed.recordResult(request);
        }),
      recordPendingDeadLetter: (request) =>
        faults.call(process, "store.recordPendingDeadLetter", () =>
          store.recordPendingDeadLetter(request),
        ),
      recordInvalid: (request) =>
        faults.call(process, "store.recordInvalid", () => store.recordInvalid(request)),
      recordScheduled: async (request) => {
        await faults.call(process, "store.recordScheduled", () => store.recordScheduled(request));
        scheduledIds.add(request.eventId);
      },
      recordRedrive: (request) =>
        faults.call(process, "store.recordRedrive", () => store.recordRedrive(request)),
      recordCancel: (request) =>
        faults.call(process, "store.recordCancel", async () => {
          const outcome = await store.recordCancel(request);
          if (outcome.kind === "recorded")
            trace.cancels.push({
              eventId: request.eventId,
              from: request.expectedStatus,
              trueAtMs: now(),
            });
          return outcome;
        }),
      recordReplay: (request) =>
        faults.call(process, "store.recordReplay", async () => {
          const outcome = await store.recordReplay(request);
          if (outcome.kind === "recorded")
            trace.replays.push({
              eventId: request.eventId,
              generation: request.generation,
              trueAtMs: now(),
            });
          return outcome;
        }),
      recordConflict: (request) =>
        faults.call(process, "store.recordConflict", () => store.recordConflict(request)),
      appendAudit: (eventId, entry) => store.appendAudit(eventId, entry),
      get: (eventId) => faults.call(process, "store.get", () => store.get(eventId)),
      listByStatus: (request) => store.listByStatus(request),
    };
    const faultyIngress: IngressQueue = {
      send: (body, schedule, delay) =>
        faults.call(process, "ingress.send", () => ingressPort.send(body, schedule, delay)),
      changeVisibility: (message, seconds) => {
        if (seconds === 0 && invocation !== undefined) {
          const key = [...invocation.receipts].find(([, r]) => r === message.receiptHandle)?.[0];
          if (key !== undefined) invocation.drained.push(key);
        }
        return faults.call(process, "ingress.changeVisibility", () =>
          ingressPort.changeVisibility(message, seconds),
        );
      },
    };
    const faultyDlq: DeadLetterQueue = {
      send: (message) => faults.call(process, "dlq.send", () => dlqPort.send(message)),
      receive: (request) => faults.call(process, "dlq.receive", () => dlqPort.receive(request)),
      delete: (receipt) => faults.call(process, "dlq.delete", () => dlqPort.delete(receipt)),
      changeVisibility: (receipt, seconds) =>
        faults.call(process, "dlq.changeVisibility", () =>
          dlqPort.changeVisibility(receipt, seconds),
        ),
    };
    const calls = target.forCaller({
      worker: process.worker,
      invocation: process.id,
      clock: process.clock,
      leaseMs: leaseMsOf,
    });
    // No latency before the call: the deadline check and the call's start are one instant.
    const faultyTarget: DeliveryTarget = {
      deliver: async (request) => {
        if (process.crashed || faults.crashes(process, "before target.deliver")) return hang();
        const result = await calls.deliver(request);
        if (process.crashed || faults.crashes(process, "after target.deliver")) return hang();
        return result;
      },
    };
    return {
      store: faultyStore,
      ingress: faultyIngress,
      deadLetters: faultyDlq,
      target: faultyTarget,
    };
  };

  // A Lambda instance keeps its breakers' cache and its limiter's count of held slots from one
  // invocation to the next, until it crashes (then its id changes); each invocation's calls go
  // through that invocation's faults.
  interface Instance {
    readonly breakers: TargetBreakers | undefined;
    readonly limits: TargetLimiter | undefined;
    readonly invocation: { process: Process };
  }
  const instances = new Map<string, Instance>();
  const instanceOf = (worker: string, process: Process): Instance => {
    const known = instances.get(worker);
    if (known !== undefined) {
      known.invocation.process = process;
      return known;
    }
    const invocation = { process };
    const clock = () => invocation.process.clock();
    const state = (): TargetStateStore => faultyTargetState(invocation.process);
    const limitsStore = (): TargetLimitsStore => faultyTargetLimits(invocation.process);
    const { breakers: settings, limits } = options;
    const instance: Instance = {
      invocation,
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
                countCall: (key, windowStartMs, nowMs) =>
                  limitsStore().countCall(key, windowStartMs, nowMs),
              },
              limitsFor: () => limits,
              clock,
              random: orchestratorRandom,
              log: silentLog,
              instanceId: worker,
            }),
    };
    instances.set(worker, instance);
    return instance;
  };

  // The orchestrator reports a deferral only in its log; the trace takes it from there.
  const deferralTracingLog: Log = {
    ...silentLog,
    info: (message, ...extra) => {
      if (!message.startsWith(DEFERRAL_LOG_PREFIX)) return;
      const fields = Object.assign({}, ...extra) as { eventId?: unknown; until?: unknown };
      if (typeof fields.eventId === "string" && typeof fields.until === "string")
        trace.deferrals.push({ eventId: fields.eventId, untilMs: Date.parse(fields.until) });
    },
  };

  const drawSkew = (random: () => number) => randomInt(random, -o.skewBoundMs, o.skewBoundMs);

  const runInvocation = async (worker: string, skewMs: number, batch: ReceivedMessage[]) => {
    const process = newProcess(worker, skewMs);
    const invocation: InvocationTrace = {
      id: process.id,
      worker,
      batch: [],
      receipts: new Map(),
      drained: [],
      claimed: [],
      deleted: [],
    };
    for (const message of batch) {
      const parsed = parseEnvelope(message.body);
      if (!parsed.ok) continue;
      const key = keyOf(parsed.envelope.eventId, message.schedule.generation);
      invocation.batch.push(key);
      invocation.receipts.set(key, message.receiptHandle);
    }
    trace.invocations.push(invocation);
    const ports = portsFor(process, invocation);
    const orchestrator = createOrchestrator({
      store: ports.store,
      ingress: ports.ingress,
      deadLetters: ports.deadLetters,
      clock: process.clock,
      random: orchestratorRandom,
      workerId: worker,
      hopSeconds: o.hopSeconds,
      retentionSeconds: 86_400,
      targets: { forTarget: () => ports.target },
      defaultPolicy: DEFAULT_POLICY,
      log: deferralTracingLog,
      metrics,
      messageConcurrency: o.messageConcurrency,
      leaseMarginMs: o.leaseMarginMs,
      breakers: instanceOf(worker, process).breakers,
      limits: instanceOf(worker, process).limits,
    });
    const startedMs = now();
    // Lambda kills an invocation at its timeout: the whole batch then comes back.
    const kill = sched.wakeableSleep(o.functionTimeoutMs);
    void kill.done.then(() => process.crash("function timeout"));
    const failed = await Promise.race([
      orchestrator.processBatch(batch, () => startedMs + o.functionTimeoutMs - now()),
      process.stopped.then(() => undefined),
    ]);
    kill.cancel();
    if (failed === undefined || process.crashed) return false;
    if (faults.crashes(process, "before batch.return")) return false;
    // The event source deletes what the function did not hand back (partial batch response).
    await sleep(latency());
    for (const message of batch) {
      if (failed.includes(message.messageId)) continue;
      ingress.delete(message.receiptHandle);
      invocation.deleted.push(message.receiptHandle);
    }
    return true;
  };

  /** One concurrency slot of the event source mapping: polls, invokes, and starts afresh after a crash. */
  const pollerLoop = async (slot: number) => {
    const workerRandom = seededRandom(seed * 31 + slot);
    let instance = 0;
    let skew = drawSkew(workerRandom);
    while (!finished) {
      await sleep(latency());
      const batch = ingress.receive(o.batchSize, o.visibilityTimeoutSeconds);
      if (batch.length === 0) {
        const next = ingress.nextVisibleAtMs();
        const wait = next === undefined ? LONG_POLL_MS : Math.min(LONG_POLL_MS, next - now());
        const nap = sched.wakeableSleep(Math.max(1, wait));
        const off = ingress.onVisible(nap.wake);
        await nap.done;
        off();
        continue;
      }
      active += 1;
      const ok = await runInvocation(`w${slot}.${instance}`, skew, batch);
      active -= 1;
      if (!ok) {
        // A crashed instance is replaced by a fresh one, with its own id and clock.
        instance += 1;
        skew = drawSkew(workerRandom);
      }
    }
  };

  const producer = async () => {
    for (const event of [...scenario].sort((a, b) => a.submitAtMs - b.submitAtMs)) {
      await sleep(event.submitAtMs - now());
      ingress.send(bodyOf(event), { generation: 0 }, 0, {
        origin: MessageOrigin.PRODUCER,
      });
      submitted += 1;
    }
  };

  let redrivesRunning = 0;
  const runOperator = async (eventIds: readonly string[]) => {
    redrivesRunning += 1;
    const operatorRandom = seededRandom(seed ^ 0x3c6ef372);
    await operatorRedrive(eventIds, {
      startRun: (run) => {
        const process = newProcess(`redrive.${run}`, drawSkew(operatorRandom));
        return { process, ports: portsFor(process) };
      },
      sleep,
      defaultPolicy: DEFAULT_POLICY,
      onReport: (report) => trace.redrives.push(report),
      onCleaned: (copy) => trace.cleaned.push(copy),
      store,
    });
    redrivesRunning -= 1;
  };

  let controlsRunning = 0;
  const runOperatorControls = async () => {
    controlsRunning += 1;
    const controlRandom = seededRandom(seed ^ 0x1b873593);
    await runControls(
      drawControls(
        seed,
        scenario.map((e) => ({ eventId: e.envelope.eventId, submitAtMs: e.submitAtMs })),
      ),
      {
        startRun: (name) => {
          const process = newProcess(name, drawSkew(controlRandom));
          return { process, ports: portsFor(process) };
        },
        now,
        sleep,
        defaultPolicy: DEFAULT_POLICY,
        bodyOf: (eventId) => bodies.get(eventId) ?? "",
        store,
        onCancelRefused: (reason) => trace.cancelRefusals.push(reason),
      },
    );
    controlsRunning -= 1;
  };

  const quiet = () =>
    submitted === scenario.length &&
    controlsRunning === 0 &&
    ingress.size() === 0 &&
    active === 0 &&
    redrivesRunning === 0 &&
    adversary.pending() === 0;

  const violations: Violation[] = [];
  void producer();
  if (options.controls ?? true) void runOperatorControls();
  for (let slot = 0; slot < o.workers; slot += 1) void pollerLoop(slot);
  let end = await sched.run(quiet, START_MS + VIRTUAL_LIMIT_MS);
  const records = store.snapshot();
  const parkedRaw = deadLetterQueue.contents().filter((m) => m.summary === undefined).length;
  // Dead-lettered and rejected events, and events stranded mid-flight by a crash loop whose raw
  // message the native redrive parked: an operator redrives all of them (a cancelled event is
  // finished by the operator's own choice, and redrive refuses it).
  const toRedrive = [...records.values()]
    .filter((r) => r.status !== EventStatus.DELIVERED && r.status !== EventStatus.CANCELLED)
    .map((r) => r.eventId);
  if (end === RunEnd.STOPPED && (options.redrive ?? true) && toRedrive.length > 0) {
    void runOperator(toRedrive);
    end = await sched.run(quiet, START_MS + VIRTUAL_LIMIT_MS);
  }
  finished = true;
  const virtualSeconds = (now() - START_MS) / 1000;
  sched.abandon();
  if (end !== RunEnd.STOPPED)
    violations.push({
      seed,
      invariant: Invariant.QUIESCENCE,
      detail: `run ended ${end} after ${virtualSeconds} virtual s with ${ingress.size()} message(s) queued`,
    });

  const final = store.snapshot();
  violations.push(
    ...checkInvariants({
      seed,
      submitted: scenario.map((e) => e.envelope),
      bodies,
      records: final,
      ingress: ingress.contents(),
      deadLetters: deadLetterQueue.contents(),
      trace,
      skewBoundMs: o.skewBoundMs,
      maxConcurrentCalls: options.limits?.maxConcurrentCalls,
      operator: OPERATOR,
      illegalTransitions: store.illegalTransitions(),
      conflictsSent: adversary.tally.conflictsSent,
    }),
  );
  const statuses = [...final.values()].map((r) => r.status);
  return {
    seed,
    events: scenario.length,
    delivered: statuses.filter((s) => s === EventStatus.DELIVERED).length,
    rejected: statuses.filter((s) => s === EventStatus.REJECTED).length,
    deadLettered: statuses.filter((s) => s === EventStatus.DEAD_LETTERED).length,
    crashes: trace.crashes,
    calls: trace.calls.length,
    redriven: trace.redrives.reduce((n, r) => n + r.moved.length, 0),
    hostile: { ...adversary.tally.sent },
    resultWriteFaults: resultWriteFault.trips,
    bulky: scenario.filter((e) => e.body !== undefined).length,
    deferred: metrics.get(MetricName.DEFERRED),
    scheduled: scheduledIds.size,
    cancelled: trace.cancels.length,
    cancelledFrom: Object.fromEntries(
      [...new Set(trace.cancels.map((c) => c.from))].map((from) => [
        from,
        trace.cancels.filter((c) => c.from === from).length,
      ]),
    ),
    cancelsRefusedInFlight: trace.cancelRefusals.filter((r) => r.includes("in flight")).length,
    replayed: trace.replays.length,
    parkedRaw,
    steps: sched.steps,
    virtualSeconds,
    violations,
  };
};
