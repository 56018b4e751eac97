import type { AdaptiveLimiter } from "../../lib/app/orchestrator/adaptive-limits.js";
import {
  createOrchestrator,
  type MessageVerdict,
  type Orchestrator,
} from "../../lib/app/orchestrator/orchestrator.js";
import type { TargetBreakers } from "../../lib/app/orchestrator/target-breakers.js";
import type { TargetLimiter } from "../../lib/app/orchestrator/target-limits.js";
import { CountingMetrics, silentLog } from "../../lib/core/observability.js";
import type { AttemptResult } from "../../lib/core/outcome.js";
import { DEFAULT_POLICY } from "../../lib/core/policy.js";
import type { DeliveryRequest, EventStore, IngressQueue } from "../../lib/core/ports.js";
import { seededRandom } from "../../lib/core/random.js";
import { createMemoryEventStore, type MemoryEventStore } from "../simulation/memory-event-store.js";
import {
  MemoryQueue,
  memoryDeadLetterQueue,
  memoryIngressQueue,
} from "../simulation/memory-queue.js";

/** What {@link memoryOrchestrator} builds. */
export interface MemoryOrchestratorOptions {
  readonly nowMs: number;
  /** A clock that moves, instead of the fixed `nowMs`. */
  readonly clock?: () => number;
  readonly workerId: string;
  /** Seed of the orchestrator's random stream (its jitter). */
  readonly seed: number;
  readonly messageConcurrency: number;
  /** Wraps the ingress port, to watch what the orchestrator sends. */
  readonly ingress?: (port: IngressQueue) => IngressQueue;
  /** Another worker's deployment to work on (its queues and store), instead of a fresh one. */
  readonly deployment?: Pick<MemoryOrchestrator, "ingress" | "deadLetters" | "store">;
  readonly breakers?: TargetBreakers | undefined;
  readonly limits?: TargetLimiter | undefined;
  readonly adaptive?: AdaptiveLimiter | undefined;
  /** Wraps the store port, to watch what the orchestrator writes. */
  readonly store?: (port: EventStore) => EventStore;
  /** How the target answers a call; default 200. */
  readonly answer?: (request: DeliveryRequest) => AttemptResult;
}

/** An orchestrator and the in-memory deployment it works on. */
export interface MemoryOrchestrator {
  readonly orchestrator: Orchestrator;
  readonly clock: () => number;
  readonly ingress: MemoryQueue;
  readonly deadLetters: MemoryQueue;
  readonly store: MemoryEventStore;
  /** Every call the target received, in order (answered 200 unless `answer` says otherwise). */
  readonly calls: DeliveryRequest[];
  readonly metrics: CountingMetrics;
  /**
   * Has the orchestrator handle the next visible ingress message, as the event source would:
   * deleted if acknowledged.
   */
  handleNext(): Promise<MessageVerdict>;
}

/**
 * The real orchestrator over in-memory queues and store, on a fixed clock, with a target that
 * answers every call 200 (or as `answer` says) and records it: for tests of what the orchestrator decides, without
 * emulators.
 */
export const memoryOrchestrator = (options: MemoryOrchestratorOptions): MemoryOrchestrator => {
  const clock = options.clock ?? (() => options.nowMs);
  const ingress = options.deployment?.ingress ?? new MemoryQueue({ name: "ingress", clock });
  const deadLetters = options.deployment?.deadLetters ?? new MemoryQueue({ name: "dlq", clock });
  const store = options.deployment?.store ?? createMemoryEventStore();
  const calls: DeliveryRequest[] = [];
  const metrics = new CountingMetrics();
  const ingressPort = memoryIngressQueue(ingress);
  const orchestrator = createOrchestrator({
    store: options.store?.(store) ?? store,
    ingress: options.ingress?.(ingressPort) ?? ingressPort,
    deadLetters: memoryDeadLetterQueue(deadLetters),
    clock,
    random: seededRandom(options.seed),
    workerId: options.workerId,
    hopSeconds: 900,
    retentionSeconds: 86_400,
    targets: {
      forTarget: () => ({
        deliver: async (request) => {
          calls.push(request);
          return options.answer?.(request) ?? { kind: "response", statusCode: 200, durationMs: 1 };
        },
      }),
    },
    defaultPolicy: DEFAULT_POLICY,
    log: silentLog,
    metrics,
    messageConcurrency: options.messageConcurrency,
    leaseMarginMs: 2_000,
    breakers: options.breakers,
    limits: options.limits,
    adaptive: options.adaptive,
  });
  const handleNext = async (): Promise<MessageVerdict> => {
    const [message] = ingress.receive(1, 60);
    if (message === undefined) throw new Error("nothing to receive");
    const verdict = await orchestrator.processMessage(message, () => 60_000);
    if (verdict.kind === "ack") ingress.delete(message.receiptHandle);
    return verdict;
  };
  return { orchestrator, clock, ingress, deadLetters, store, calls, metrics, handleNext };
};
