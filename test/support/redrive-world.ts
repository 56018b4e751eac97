import { createDynamoEventStore } from "../../lib/adapters/dynamo-event-store.js";
import { createSqsDeadLetterQueue } from "../../lib/adapters/sqs-dead-letter-queue.js";
import { createSqsIngressQueue } from "../../lib/adapters/sqs-ingress-queue.js";
import type { RedriveDeps } from "../../lib/app/operator/redrive-deps.js";
import { DEFAULT_POLICY } from "../../lib/core/policy.js";
import type { DeadLetterQueue, EventStore } from "../../lib/core/ports.js";
import { FIXED_NOW_MS } from "./factories.js";
import { createTestQueues, createTestTable, testClients } from "./local-aws.js";

/** A fresh queue pair and table on the emulators, with redrive's dependencies over them. */
export interface RedriveWorld {
  readonly deps: RedriveDeps;
  readonly store: EventStore;
  readonly dlq: DeadLetterQueue;
  readonly ingressQueueUrl: string;
  /** Where redriven messages go: Ricochet's own queue. */
  readonly internalQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly tableName: string;
  /** The injected clock's current time; `deps.sleep` advances it instead of waiting. */
  now(): number;
  advance(ms: number): void;
}

export const createRedriveWorld = async (prefix: string): Promise<RedriveWorld> => {
  const { sqs, documents } = testClients();
  const [queues, tableName] = await Promise.all([
    createTestQueues(prefix),
    createTestTable(prefix),
  ]);
  const store = createDynamoEventStore({ doc: documents, tableName });
  const dlq = createSqsDeadLetterQueue({ sqs, queueUrl: queues.deadLetterQueueUrl });
  let now = FIXED_NOW_MS;
  return {
    store,
    dlq,
    ingressQueueUrl: queues.ingressQueueUrl,
    internalQueueUrl: queues.internalQueueUrl,
    deadLetterQueueUrl: queues.deadLetterQueueUrl,
    tableName,
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
    deps: {
      deadLetterQueue: dlq,
      ingressQueue: createSqsIngressQueue({
        sqs,
        ingressQueueUrl: queues.ingressQueueUrl,
        internalQueueUrl: queues.internalQueueUrl,
      }),
      store,
      clock: () => now,
      sleep: async (ms) => {
        now += ms;
      },
      defaultPolicy: DEFAULT_POLICY,
      scanVisibilitySeconds: 5,
    },
  };
};
