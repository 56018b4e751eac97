import type { Envelope } from "../../lib/core/envelope.js";
import { StoreUnavailableError } from "../../lib/core/errors.js";
import type {
  DeadLetterQueue,
  DeliveryTarget,
  EventStore,
  IngressQueue,
  TargetLimitsStore,
  TargetStateStore,
} from "../../lib/core/ports.js";
import { EventStatus } from "../../lib/core/status.js";
import { observeStore } from "../support/observed-store.js";
import { hang, type Process } from "./faults.js";
import { memoryDeadLetterQueue, memoryIngressQueue } from "./memory-queue.js";
import { timeoutOf } from "./simulated-target.js";
import type { SimulationWorld } from "./simulation-world.js";
import { type InvocationTrace, keyOf } from "./trace.js";

/*
 * The ports one process reaches the deployment through: every call may fail or crash the process
 * as the fault plan says, and what the invariants need (claims, drains, cancels, replays,
 * scheduled events) is written to the trace on the way.
 */

/** The ports a process (an invocation, an operator's run) is given. */
export interface FaultyPorts {
  readonly store: EventStore;
  readonly ingress: IngressQueue;
  readonly deadLetters: DeadLetterQueue;
  readonly target: DeliveryTarget;
}

const faultyStore = (
  world: SimulationWorld,
  process: Process,
  invocation: InvocationTrace | undefined,
): EventStore => {
  const { store, faults, trace, now } = world;
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
    onRecorded: (request) => {
      trace.results.push(request.eventId);
      world.adversary.observe(request.eventId, request.status);
    },
  });
  return {
    claim: (request) => faults.call(process, "store.claim", () => observed.claim(request)),
    recordResult: (request) =>
      faults.call(process, "store.recordResult", async () => {
        if (
          request.status !== EventStatus.DELIVERED &&
          world.resultWriteFault.strikes(request.eventId)
        )
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
      world.scheduledIds.add(request.eventId);
    },
    recordDeferral: (request) =>
      faults.call(process, "store.recordDeferral", () => store.recordDeferral(request)),
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
    listRecent: (request) => store.listRecent(request),
    listStuck: (request) => store.listStuck(request),
  };
};

const faultyIngress = (
  world: SimulationWorld,
  process: Process,
  invocation: InvocationTrace | undefined,
): IngressQueue => {
  const port = memoryIngressQueue(world.ingress);
  return {
    send: (body, schedule, delay) =>
      world.faults.call(process, "ingress.send", () => port.send(body, schedule, delay)),
    changeVisibility: (message, seconds) => {
      // Handing a message back at once is the orchestrator draining it: the trace needs which.
      if (seconds === 0 && invocation !== undefined) {
        const key = [...invocation.receipts].find(([, r]) => r === message.receiptHandle)?.[0];
        if (key !== undefined) invocation.drained.push(key);
      }
      return world.faults.call(process, "ingress.changeVisibility", () =>
        port.changeVisibility(message, seconds),
      );
    },
  };
};

const faultyDeadLetters = (world: SimulationWorld, process: Process): DeadLetterQueue => {
  const port = memoryDeadLetterQueue(world.deadLetterQueue);
  const { faults } = world;
  return {
    send: (message) => faults.call(process, "dlq.send", () => port.send(message)),
    receive: (request) => faults.call(process, "dlq.receive", () => port.receive(request)),
    delete: (receipt) => faults.call(process, "dlq.delete", () => port.delete(receipt)),
    changeVisibility: (receipt, seconds) =>
      faults.call(process, "dlq.changeVisibility", () => port.changeVisibility(receipt, seconds)),
  };
};

const faultyTarget = (world: SimulationWorld, process: Process): DeliveryTarget => {
  const leaseMsOf = (envelope: Envelope): number =>
    timeoutOf(envelope) + world.settings.leaseMarginMs;
  const calls = world.target.forCaller({
    worker: process.worker,
    invocation: process.id,
    clock: process.clock,
    leaseMs: leaseMsOf,
  });
  // No latency before the call: the deadline check and the call's start are one instant.
  return {
    deliver: async (request) => {
      if (process.crashed || world.faults.crashes(process, "before target.deliver")) return hang();
      const result = await calls.deliver(request);
      if (process.crashed || world.faults.crashes(process, "after target.deliver")) return hang();
      return result;
    },
  };
};

/** The ports `process` works through; `invocation` is its trace when it is a Lambda invocation. */
export const faultyPortsFor = (
  world: SimulationWorld,
  process: Process,
  invocation?: InvocationTrace,
): FaultyPorts => ({
  store: faultyStore(world, process, invocation),
  ingress: faultyIngress(world, process, invocation),
  deadLetters: faultyDeadLetters(world, process),
  target: faultyTarget(world, process),
});

/** The breakers' table as `process` reaches it. */
export const faultyTargetState = (world: SimulationWorld, process: Process): TargetStateStore => {
  const { faults, targetState } = world;
  return {
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
    // Fire-and-forget for operators only: no fault here can change what is delivered.
    writeLearnedLimit: (write) => targetState.writeLearnedLimit(write),
  };
};

/** The limits' table as `process` reaches it. */
export const faultyTargetLimits = (world: SimulationWorld, process: Process): TargetLimitsStore => {
  const { faults, targetLimits } = world;
  return {
    takeSlot: (request) =>
      faults.call(process, "limits.takeSlot", () => targetLimits.takeSlot(request)),
    releaseSlot: (key, slot, holder) =>
      faults.call(process, "limits.releaseSlot", () => targetLimits.releaseSlot(key, slot, holder)),
    countCall: (key, windowStartMs, nowMs, calls) =>
      faults.call(process, "limits.countCall", () =>
        targetLimits.countCall(key, windowStartMs, nowMs, calls),
      ),
  };
};
