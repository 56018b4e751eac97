import { listDeadLetters } from "../../lib/app/operator/dead-letter-scan.js";
import { MetricName } from "../../lib/contract/metric-names.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import { DEFAULT_POLICY } from "../../lib/core/policy.js";
import { MessageOrigin } from "../../lib/core/ports.js";
import { randomInt, seededRandom } from "../../lib/core/random.js";
import { EventStatus } from "../../lib/core/status.js";
import { targetReport } from "../../lib/core/target-report.js";
import type { AdversaryMark } from "../support/adversarial-producer.js";
import type { OperatorViews } from "../support/operator-renderings.js";
import { streamFor } from "../support/random-streams.js";
import { createEventSource } from "./event-source.js";
import { faultyPortsFor } from "./faulty-ports.js";
import { checkInvariants, Invariant, placeOf, type Violation } from "./invariants.js";
import { memoryDeadLetterQueue } from "./memory-queue.js";
import { bodyOf, SLOW_ORIGIN } from "./scenario.js";
import { RunEnd } from "./scheduler.js";
import { drawControls, runControls } from "./simulated-controls.js";
import { OPERATOR, operatorRedrive } from "./simulated-operator.js";
import type { SimulationOptions } from "./simulation-options.js";
import { createSimulationWorld, type SimulationWorld, START_MS } from "./simulation-world.js";

export {
  SENSITIVE_BREAKERS,
  SIMULATION_TIMINGS,
  type SimulationOptions,
  TIGHT_LIMITS,
} from "./simulation-options.js";

/*
 * One seeded run: producers, the event source's pollers and an operator's cancels and replays
 * work on one world (simulation-world.ts) until it is quiet; an operator then redrives what did
 * not finish, and the invariants are checked on the end state and the trace.
 */

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
  /** Dead-letter deletes through an outdated receipt handle, which deleted nothing. */
  readonly staleDeadLetterDeletes: number;
  readonly steps: number;
  readonly virtualSeconds: number;
  readonly violations: Violation[];
}

/** A run that has not settled after this much virtual time is stuck. */
const VIRTUAL_LIMIT_MS = 3 * 24 * 3600 * 1000;

/** Sends the scenario's events to the ingress queue, each at its time. */
const produce = async (world: SimulationWorld, sent: { count: number }) => {
  for (const event of [...world.scenario].sort((a, b) => a.submitAtMs - b.submitAtMs)) {
    await world.sleep(event.submitAtMs - world.now());
    world.ingress.send(bodyOf(event), { generation: 0 }, 0, { origin: MessageOrigin.PRODUCER });
    sent.count += 1;
  }
};

/** The operator redrives `eventIds` (several runs, each its own crashable process). */
const redriveAsOperator = (world: SimulationWorld, eventIds: readonly string[]) => {
  const operatorRandom = seededRandom(world.seed ^ 0x3c6ef372);
  const cleanReads = streamFor(world.seed, "clean-reads");
  return operatorRedrive(eventIds, {
    startRun: (run) => {
      const process = world.newProcess(`redrive.${run}`, world.drawSkew(operatorRandom));
      return { process, ports: faultyPortsFor(world, process) };
    },
    sleep: world.sleep,
    defaultPolicy: DEFAULT_POLICY,
    onReport: (report) => world.trace.redrives.push(report),
    onCleanReceived: (copy) => world.trace.cleanReceived.set(copy.receiptHandle, copy),
    onCleanExcused: (messageIds) => {
      for (const id of messageIds) world.trace.cleanExcused.add(id);
    },
    onCleanReport: (report) => world.trace.cleanReports.push(report),
    onRedriven: (body) => world.trace.redriven.push(body),
    onListing: (listing) => world.trace.listings.push(listing),
    cleanReadDelayMs: () => randomInt(cleanReads, 0, 1500),
    store: world.store,
  });
};

/** The operator cancels and replays the events the seed picks, while the run goes on. */
const controlAsOperator = (world: SimulationWorld) => {
  const controlRandom = seededRandom(world.seed ^ 0x1b873593);
  return runControls(
    drawControls(
      world.seed,
      world.scenario.map((e) => ({ eventId: e.envelope.eventId, submitAtMs: e.submitAtMs })),
    ),
    {
      startRun: (name) => {
        const process = world.newProcess(name, world.drawSkew(controlRandom));
        return { process, ports: faultyPortsFor(world, process) };
      },
      now: world.now,
      sleep: world.sleep,
      defaultPolicy: DEFAULT_POLICY,
      bodyOf: (eventId) => world.bodies.get(eventId) ?? "",
      store: world.store,
      onCancelRefused: (reason) => world.trace.cancelRefusals.push(reason),
    },
  );
};

/**
 * Events an operator redrives once the first wave is over: dead-lettered and rejected events,
 * and events stranded mid-flight by a crash loop whose raw message the native redrive parked (a
 * cancelled event is finished by the operator's own choice, and redrive refuses it).
 */
const unfinishedEventIds = (world: SimulationWorld): string[] =>
  [...world.store.snapshot().values()]
    .filter((r) => r.status !== EventStatus.DELIVERED && r.status !== EventStatus.CANCELLED)
    .map((r) => r.eventId);

/**
 * What the operator can look at once the run is over: every record (`status`, `events`), what
 * the second operator's `dlq list` runs printed and a last listing, the targets, and the reports
 * of the clean-ups and redrives. Read outside any fault, after the end state was taken.
 */
const operatorViews = async (world: SimulationWorld): Promise<OperatorViews> => {
  const nowMs = world.now();
  const windowMs = (world.options.breakers ?? DEFAULT_BREAKER_SETTINGS).windowMs;
  const last = await listDeadLetters(
    memoryDeadLetterQueue(world.deadLetterQueue),
    { filter: {}, visibilitySeconds: 1 },
    world.store,
  );
  return {
    records: [...world.store.snapshot().values()],
    deadLetters: [...world.trace.listings.flat(), ...last],
    targets: (await world.targetState.list(1000)).map((t) => targetReport(t, nowMs, windowMs)),
    cleans: world.trace.cleanReports,
    redrives: world.trace.redrives,
    nowMs,
  };
};

/** The copies `dlq clean` runs really removed: deleted through a handle a clean run received. */
const cleanedCopies = (world: SimulationWorld) =>
  world.deadLetterQueue.deletions.flatMap(({ receiptHandle }) => {
    const copy = world.trace.cleanReceived.get(receiptHandle);
    return copy === undefined ? [] : [copy];
  });

/** Every guarantee checked on the end state; a run that did not settle breaks quiescence. */
const violationsOf = (
  world: SimulationWorld,
  end: RunEnd,
  virtualSeconds: number,
  views: OperatorViews,
): Violation[] => [
  ...(end === RunEnd.STOPPED
    ? []
    : [
        {
          seed: world.seed,
          invariant: Invariant.QUIESCENCE,
          detail: `run ended ${end} after ${virtualSeconds} virtual s with ${world.ingress.size()} message(s) queued`,
        },
      ]),
  ...checkInvariants({
    seed: world.seed,
    submitted: world.scenario.map((e) => e.envelope),
    bodies: world.bodies,
    records: world.store.snapshot(),
    ingress: world.ingress.contents(),
    deadLetters: world.deadLetterQueue.contents(),
    trace: world.trace,
    skewBoundMs: world.settings.skewBoundMs,
    maxConcurrentCalls: world.options.limits?.maxConcurrentCalls,
    operator: OPERATOR,
    illegalTransitions: world.store.illegalTransitions(),
    conflictsSent: world.adversary.tally.conflictsSent,
    healthyPlaces: new Set([placeOf({ type: "http", url: SLOW_ORIGIN })]),
    forgedDeadLetterBodies: world.adversary.tally.forgedDeadLetterBodies,
    cleaned: cleanedCopies(world),
    views,
  }),
];

/** The run's figures, from the store's end state, the trace and the counters. */
const summaryOf = (
  world: SimulationWorld,
  figures: { parkedRaw: number; virtualSeconds: number; violations: Violation[] },
): SimulationResult => {
  const { trace, scenario } = world;
  const statuses = [...world.store.snapshot().values()].map((r) => r.status);
  const count = (status: string) => statuses.filter((s) => s === status).length;
  return {
    seed: world.seed,
    events: scenario.length,
    delivered: count(EventStatus.DELIVERED),
    rejected: count(EventStatus.REJECTED),
    deadLettered: count(EventStatus.DEAD_LETTERED),
    crashes: trace.crashes,
    calls: trace.calls.length,
    redriven: trace.redrives.reduce((n, r) => n + r.moved.length, 0),
    hostile: { ...world.adversary.tally.sent },
    resultWriteFaults: world.resultWriteFault.trips,
    bulky: scenario.filter((e) => e.body !== undefined).length,
    deferred: world.metrics.get(MetricName.DEFERRED),
    scheduled: world.scheduledIds.size,
    cancelled: trace.cancels.length,
    cancelledFrom: Object.fromEntries(
      [...new Set(trace.cancels.map((c) => c.from))].map((from) => [
        from,
        trace.cancels.filter((c) => c.from === from).length,
      ]),
    ),
    cancelsRefusedInFlight: trace.cancelRefusals.filter((r) => r.includes("in flight")).length,
    replayed: trace.replays.length,
    parkedRaw: figures.parkedRaw,
    staleDeadLetterDeletes: world.deadLetterQueue.staleDeletes,
    steps: world.sched.steps,
    virtualSeconds: figures.virtualSeconds,
    violations: figures.violations,
  };
};

/** Runs one seeded simulation to quiescence and checks every guarantee. Deterministic. */
export const runSimulation = async (options: SimulationOptions): Promise<SimulationResult> => {
  const world = createSimulationWorld(options);
  const { sched, ingress } = world;
  const eventSource = createEventSource(world);
  const sent = { count: 0 };
  let controlsRunning = 0;
  let redrivesRunning = 0;
  const quiet = () =>
    sent.count === world.scenario.length &&
    controlsRunning === 0 &&
    ingress.size() === 0 &&
    eventSource.active() === 0 &&
    redrivesRunning === 0 &&
    world.adversary.pending() === 0;

  void produce(world, sent);
  if (options.controls ?? true) {
    controlsRunning += 1;
    void controlAsOperator(world).then(() => {
      controlsRunning -= 1;
    });
  }
  for (let slot = 0; slot < world.settings.workers; slot += 1) void eventSource.poll(slot);
  let end = await sched.run(quiet, START_MS + VIRTUAL_LIMIT_MS);
  const parkedRaw = world.deadLetterQueue.contents().filter((m) => m.summary === undefined).length;
  const toRedrive = unfinishedEventIds(world);
  if (end === RunEnd.STOPPED && (options.redrive ?? true) && toRedrive.length > 0) {
    redrivesRunning += 1;
    void redriveAsOperator(world, toRedrive).then(() => {
      redrivesRunning -= 1;
    });
    end = await sched.run(quiet, START_MS + VIRTUAL_LIMIT_MS);
  }
  eventSource.stop();
  const virtualSeconds = (world.now() - START_MS) / 1000;
  sched.abandon();
  const violations = violationsOf(world, end, virtualSeconds, await operatorViews(world));
  return summaryOf(world, { parkedRaw, virtualSeconds, violations });
};
