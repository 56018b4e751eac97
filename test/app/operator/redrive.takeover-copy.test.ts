import { describe, expect, it } from "vitest";
import { listDeadLetters } from "../../../lib/app/operator/dead-letter-scan.js";
import { redrive, SkipReason } from "../../../lib/app/operator/redrive.js";
import { StoreUnavailableError } from "../../../lib/core/errors.js";
import { DEFAULT_POLICY } from "../../../lib/core/policy.js";
import { MessageOrigin } from "../../../lib/core/ports.js";
import { EventStatus } from "../../../lib/core/status.js";
import { memoryDeadLetterQueue, memoryIngressQueue } from "../../simulation/memory-queue.js";
import { type MemoryOrchestrator, memoryOrchestrator } from "../../support/memory-orchestrator.js";

/*
 * A dead-letter decision whose result write failed after its copy left is finished by whoever
 * takes the event over: the same copy again, then the end recorded. The takeover's claim counts
 * on the record, the copies name the attempt that decided. Both copies are Ricochet's own word,
 * and a routine redrive must move the event (found by the simulation, seed 5086).
 */

const NOW = Date.UTC(2030, 0, 1);
const EVENT_ID = "evt-takeover";
const BODY = JSON.stringify({
  eventId: EVENT_ID,
  target: { type: "http", url: "https://partner.example/hook" },
  payload: { n: 1 },
  policy: { maxAttempts: 1 },
});

/** Receives the next message and has `worker` handle it, deleting it when told to. */
const handleNext = async (worker: MemoryOrchestrator): Promise<void> => {
  const [message] = worker.ingress.receive(1, 60);
  if (message === undefined) throw new Error("nothing to receive");
  const verdict = await worker.orchestrator.processMessage(message, () => 60_000);
  if (verdict.kind === "ack") worker.ingress.delete(message.receiptHandle);
};

/** An event dead-lettered by a takeover after its first worker's result write was refused. */
const deadLetteredByTakeover = async () => {
  let now = NOW;
  const clock = () => now;
  let refused = false;
  const first = memoryOrchestrator({
    nowMs: NOW,
    clock,
    workerId: "worker-a",
    seed: 1,
    messageConcurrency: 1,
    answer: () => ({ kind: "response", statusCode: 503, durationMs: 1 }),
    store: (port) => ({
      ...port,
      recordResult: async (request) => {
        if (refused) return port.recordResult(request);
        refused = true;
        throw new StoreUnavailableError("result write refused (test)");
      },
    }),
  });
  const second = memoryOrchestrator({
    nowMs: NOW,
    clock,
    workerId: "worker-b",
    seed: 2,
    messageConcurrency: 1,
    answer: () => ({ kind: "response", statusCode: 503, durationMs: 1 }),
    deployment: first,
  });
  first.ingress.send(BODY, { generation: 0 }, 0, { origin: MessageOrigin.PRODUCER });
  await handleNext(first);
  // Past the message's visibility timeout and the first worker's lease.
  now += 120_000;
  await handleNext(second);
  const deps = {
    deadLetterQueue: memoryDeadLetterQueue(first.deadLetters),
    ingressQueue: memoryIngressQueue(first.ingress),
    store: first.store,
    clock,
    sleep: async (ms: number) => {
      now += ms;
    },
    defaultPolicy: DEFAULT_POLICY,
  };
  return { world: first, deps };
};

describe("the copies of a dead-lettering a takeover finished", () => {
  it("are listed as verified and moved by a routine redrive, the second as a duplicate", async () => {
    const { world, deps } = await deadLetteredByTakeover();
    const record = await world.store.get(EVENT_ID);
    expect(record).toMatchObject({
      status: EventStatus.DEAD_LETTERED,
      deadLetterReason: "exhausted",
    });
    expect(world.calls).toHaveLength(1);

    const listing = await listDeadLetters(deps.deadLetterQueue, { filter: {} }, deps.store);
    expect(listing.map((l) => [l.eventId, l.verified, l.unverified])).toEqual([
      [EVENT_ID, true, undefined],
      [EVENT_ID, true, undefined],
    ]);

    const report = await redrive(deps, { reasons: ["exhausted"], by: "alice" });
    expect(report.moved).toEqual([expect.objectContaining({ eventId: EVENT_ID, generation: 1 })]);
    expect(report.skipped).toEqual([
      expect.objectContaining({ eventId: EVENT_ID, reason: SkipReason.DUPLICATE }),
    ]);
    expect(world.deadLetters.size()).toBe(0);
  });
});
