import { createDynamoEventStore } from "../../lib/adapters/dynamo-event-store.js";
import { createDynamoTargetStateStore } from "../../lib/adapters/dynamo-target-state-store.js";
import { createSqsDeadLetterQueue } from "../../lib/adapters/sqs-dead-letter-queue.js";
import { createSqsIngressQueue } from "../../lib/adapters/sqs-ingress-queue.js";
import type { ConsoleDeps } from "../../lib/console/console-deps.js";
import { type RunningConsole, startConsole } from "../../lib/console/console-server.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import type { Envelope } from "../../lib/core/envelope.js";
import { envelopeDigest } from "../../lib/core/envelope-digest.js";
import { DEFAULT_POLICY } from "../../lib/core/policy.js";
import { DEFAULT_POLICY_LIMITS } from "../../lib/core/policy-limits.js";
import type { EventStore } from "../../lib/core/ports.js";
import type { AttemptEntry, EventRecord } from "../../lib/core/record.js";
import { describeTarget } from "../../lib/core/redact.js";
import { countingCallerIdentity } from "../support/counting-caller-identity.js";
import { anEnvelope, FIXED_NOW_MS } from "../support/factories.js";
import { createTestQueues, createTestTable, testClients } from "../support/local-aws.js";

/** Who the console's audit entries say asked, in these tests. */
export const CONSOLE_TEST_BY = "console-test";

/** One attempt to seed: its result, and the delay drawn after it (a retry) or none (the end). */
export interface SeededAttempt {
  readonly outcome: AttemptEntry["outcome"];
  readonly statusCode: number;
  readonly message: string;
  readonly delaySeconds?: number;
  /** How long the call took (default 110 ms). */
  readonly callMs?: number;
}

/**
 * Writes an event's attempts through the real store, as the orchestrator would, the first
 * claimed at `startMs`: claim, then the result (a retry moves to the next generation), the last
 * one delivering the event, or dead-lettering it if it failed.
 */
export const seedAttempts = async (
  store: EventStore,
  attempts: readonly SeededAttempt[],
  envelope: Envelope = anEnvelope(),
  startMs: number = FIXED_NOW_MS,
): Promise<EventRecord> => {
  let nowMs = startMs;
  let generation = 0;
  for (const [index, seeded] of attempts.entries()) {
    const claimed = await store.claim({
      eventId: envelope.eventId,
      generation,
      worker: "worker-1",
      nowMs,
      leaseMs: 60_000,
      attemptBudget: DEFAULT_POLICY.maxAttempts,
      targetSummary: describeTarget(envelope.target),
      envelopeDigest: envelopeDigest(envelope),
    });
    if (claimed.kind !== "claimed") throw new Error(`claim: ${claimed.kind}`);
    const retry = seeded.delaySeconds !== undefined;
    const finishedMs = nowMs + 10 + (seeded.callMs ?? 110);
    await store.recordResult({
      eventId: envelope.eventId,
      worker: "worker-1",
      generation,
      newGeneration: retry ? generation + 1 : generation,
      status: retry
        ? "retry_scheduled"
        : seeded.outcome === "success"
          ? "delivered"
          : "dead_lettered",
      claimed: claimed.record,
      entry: {
        attempt: index + 1,
        worker: "worker-1",
        claimedAt: new Date(nowMs).toISOString(),
        sentAt: new Date(nowMs + 10).toISOString(),
        finishedAt: new Date(finishedMs).toISOString(),
        outcome: seeded.outcome,
        statusCode: seeded.statusCode,
        message: seeded.message,
        delaySeconds: seeded.delaySeconds,
      },
      nextAttemptAt: retry
        ? new Date(finishedMs + (seeded.delaySeconds ?? 0) * 1000).toISOString()
        : undefined,
      nowMs: finishedMs,
      retentionSeconds: 3600,
    });
    nowMs = finishedMs + (seeded.delaySeconds ?? 0) * 1000;
    if (retry) generation += 1;
  }
  const record = await store.get(envelope.eventId);
  if (record === undefined) throw new Error("seeded event has no record");
  return record;
};

/** A fresh table and queues on the emulators, and a console started over them. */
export interface ConsoleWorld {
  readonly deps: ConsoleDeps;
  readonly console: RunningConsole;
  /** The console's address without the token. */
  readonly origin: string;
}

/** `overrides` replace the world's deps (a slower `sleep`, say). */
export const startConsoleWorld = async (
  prefix: string,
  overrides: Partial<ConsoleDeps> = {},
): Promise<ConsoleWorld> => {
  const { sqs, documents } = testClients();
  const [queues, tableName] = await Promise.all([
    createTestQueues(prefix),
    createTestTable(prefix),
  ]);
  const deps: ConsoleDeps = {
    store: createDynamoEventStore({ doc: documents, tableName }),
    deadLetterQueue: createSqsDeadLetterQueue({ sqs, queueUrl: queues.deadLetterQueueUrl }),
    ingressQueue: createSqsIngressQueue({
      sqs,
      ingressQueueUrl: queues.ingressQueueUrl,
      internalQueueUrl: queues.internalQueueUrl,
    }),
    targetState: createDynamoTargetStateStore({ doc: documents, tableName }),
    callerIdentity: countingCallerIdentity().identity,
    defaultPolicy: DEFAULT_POLICY,
    policyLimits: DEFAULT_POLICY_LIMITS,
    breakers: DEFAULT_BREAKER_SETTINGS,
    by: CONSOLE_TEST_BY,
    clock: Date.now,
    sleep: async () => {},
    refreshSeconds: 2,
    ...overrides,
  };
  const running = await startConsole(deps);
  return { deps, console: running, origin: `http://127.0.0.1:${running.port}` };
};
