import { createOrchestrator } from "../../lib/app/orchestrator/orchestrator.js";
import { parseEnvelope } from "../../lib/core/envelope.js";
import { type Log, silentLog } from "../../lib/core/observability.js";
import { DEFAULT_POLICY } from "../../lib/core/policy.js";
import type { ReceivedMessage } from "../../lib/core/ports.js";
import { seededRandom } from "../../lib/core/random.js";
import { faultyPortsFor } from "./faulty-ports.js";
import { lambdaInstances } from "./lambda-instances.js";
import type { SimulationWorld, StoppableProcess } from "./simulation-world.js";
import { type InvocationTrace, keyOf } from "./trace.js";

/*
 * The SQS event source mapping: concurrency slots that poll the ingress queue and invoke the
 * orchestrator function on each batch, with Lambda's timeout, crashes and partial batch response.
 */

/** How the orchestrator's log line for a deferral starts (lib/app/orchestrator/defer.ts). */
const DEFERRAL_LOG_PREFIX = "event deferred";
const LONG_POLL_MS = 20_000;

export interface EventSource {
  /** Runs one concurrency slot until {@link EventSource.stop}. */
  poll(slot: number): Promise<void>;
  /** Invocations running now. */
  active(): number;
  stop(): void;
}

/** The orchestrator reports a deferral only in its log; the trace takes it from there. */
const deferralTracingLog = (world: SimulationWorld): Log => ({
  ...silentLog,
  info: (message, ...extra) => {
    if (!message.startsWith(DEFERRAL_LOG_PREFIX)) return;
    const fields = Object.assign({}, ...extra) as { eventId?: unknown; until?: unknown };
    if (typeof fields.eventId === "string" && typeof fields.until === "string")
      world.trace.deferrals.push({
        eventId: fields.eventId,
        untilMs: Date.parse(fields.until),
        byBreaker: message.includes("circuit breaker"),
      });
  },
});

/** The invocation's trace, with the batch's keys and receipts (invalid bodies have no key). */
const traceInvocation = (
  process: StoppableProcess,
  batch: readonly ReceivedMessage[],
): InvocationTrace => {
  const invocation: InvocationTrace = {
    id: process.id,
    worker: process.worker,
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
  return invocation;
};

export const createEventSource = (world: SimulationWorld): EventSource => {
  const { sched, now, sleep, latency, ingress, settings: o } = world;
  const instanceOf = lambdaInstances(world);
  const log = deferralTracingLog(world);
  let active = 0;
  let finished = false;

  /** One invocation of the function on `batch`; false when its instance crashed. */
  const invoke = async (worker: string, skewMs: number, batch: ReceivedMessage[]) => {
    const process = world.newProcess(worker, skewMs);
    const invocation = traceInvocation(process, batch);
    world.trace.invocations.push(invocation);
    const ports = faultyPortsFor(world, process, invocation);
    const instance = instanceOf(worker, process);
    const orchestrator = createOrchestrator({
      store: ports.store,
      ingress: ports.ingress,
      deadLetters: ports.deadLetters,
      clock: process.clock,
      random: world.orchestratorRandom,
      workerId: worker,
      hopSeconds: o.hopSeconds,
      retentionSeconds: 86_400,
      targets: { forTarget: () => ports.target },
      defaultPolicy: DEFAULT_POLICY,
      log,
      metrics: world.metrics,
      messageConcurrency: o.messageConcurrency,
      leaseMarginMs: o.leaseMarginMs,
      breakers: instance.breakers,
      limits: instance.limits,
      adaptive: instance.adaptive,
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
    if (world.faults.crashes(process, "before batch.return")) return false;
    // The event source deletes what the function did not hand back (partial batch response).
    await sleep(latency());
    for (const message of batch) {
      if (failed.includes(message.messageId)) continue;
      ingress.delete(message.receiptHandle);
      invocation.deleted.push(message.receiptHandle);
      const parsed = parseEnvelope(message.body);
      if (parsed.ok) {
        const { eventId } = parsed.envelope;
        world.trace.acknowledged.push({ eventId, recorded: world.store.has(eventId) });
      }
    }
    return true;
  };

  /** Waits, long-polling, until a message may be visible. */
  const awaitVisible = async () => {
    const next = ingress.nextVisibleAtMs();
    const wait = next === undefined ? LONG_POLL_MS : Math.min(LONG_POLL_MS, next - now());
    const nap = sched.wakeableSleep(Math.max(1, wait));
    const off = ingress.onVisible(nap.wake);
    await nap.done;
    off();
  };

  /** One concurrency slot: polls, invokes, and starts afresh after a crash. */
  const poll = async (slot: number) => {
    const workerRandom = seededRandom(world.seed * 31 + slot);
    let instance = 0;
    let skew = world.drawSkew(workerRandom);
    while (!finished) {
      await sleep(latency());
      const batch = ingress.receive(o.batchSize, o.visibilityTimeoutSeconds);
      if (batch.length === 0) {
        await awaitVisible();
        continue;
      }
      active += 1;
      const ok = await invoke(`w${slot}.${instance}`, skew, batch);
      active -= 1;
      if (!ok) {
        // A crashed instance is replaced by a fresh one, with its own id and clock.
        instance += 1;
        skew = world.drawSkew(workerRandom);
      }
    }
  };

  return {
    poll,
    active: () => active,
    stop: () => {
      finished = true;
    },
  };
};
