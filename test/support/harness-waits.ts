import type { SQSClient } from "@aws-sdk/client-sqs";
import type { EventStore } from "../../lib/core/ports.js";
import type { EventRecord } from "../../lib/core/record.js";
import { type EventStatus, isTerminal } from "../../lib/core/status.js";
import { liveInputMessages } from "./harness-queue-reads.js";
import type { TestQueues } from "./local-aws.js";
import { pollUntil } from "./poll-until.js";

/*
 * What the orchestrator harness waits for, on the wall clock: the workers run on their own, so a
 * test polls the store or the queues until the end state it expects, or fails saying what it saw.
 */

/** Waits until `predicate` holds; throws after `timeoutMs`. */
export const waitFor = async (predicate: () => boolean, timeoutMs: number): Promise<void> => {
  const reached = await pollUntil(() => (predicate() ? true : undefined), {
    timeoutMs,
    intervalMs: 50,
  });
  if (reached === undefined) throw new Error("condition not reached in time");
};

/** Waits until the event's record has `status`, and returns it; throws with the last one seen. */
export const waitForStatus = async (
  store: EventStore,
  eventId: string,
  status: EventStatus,
  timeoutMs: number,
): Promise<EventRecord> => {
  let last: EventRecord | undefined;
  const reached = await pollUntil(
    async () => {
      last = await store.get(eventId);
      return last?.status === status ? last : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
  if (reached !== undefined) return reached;
  throw new Error(`${eventId} did not reach ${status}; last seen: ${JSON.stringify(last)}`);
};

/** Waits until every event is terminal; returns those that are not (none, when nothing is lost). */
export const waitUntilAllTerminal = async (
  store: EventStore,
  eventIds: readonly string[],
  timeoutMs: number,
): Promise<string[]> => {
  let pending = [...eventIds];
  await pollUntil(
    async () => {
      const records = await Promise.all(pending.map((id) => store.get(id)));
      pending = pending.filter((_, i) => {
        const record = records[i];
        return record === undefined || !isTerminal(record.status);
      });
      return pending.length === 0 ? true : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
  return pending;
};

/** Waits until both input queues hold nothing (visible, in flight or delayed); throws after `timeoutMs`. */
export const waitForQueueEmpty = async (
  sqs: SQSClient,
  queues: TestQueues,
  timeoutMs: number,
): Promise<void> => {
  const emptied = await pollUntil(
    async () => ((await liveInputMessages(sqs, queues)) === 0 ? true : undefined),
    { timeoutMs, intervalMs: 200 },
  );
  if (emptied === undefined) throw new Error("input queues did not empty");
};
