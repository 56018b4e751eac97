import { setTimeout as sleep } from "node:timers/promises";
import { QueueUnavailableError, StoreUnavailableError } from "../../lib/core/errors.js";
import type { DeadLetterQueue, EventStore, RecordResultRequest } from "../../lib/core/ports.js";

/*
 * Real adapters with one injected fault each, for the orchestrator's integration tests: the
 * emulators answer everything else.
 */

/** `store` with `latencyMs` added before every call: widens every race window. */
export const slowStore = (store: EventStore, latencyMs: number): EventStore => {
  const slow =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await sleep(latencyMs);
      return call(...args);
    };
  return {
    claim: slow(store.claim),
    recordResult: slow(store.recordResult),
    recordPendingDeadLetter: slow(store.recordPendingDeadLetter),
    recordInvalid: slow(store.recordInvalid),
    recordScheduled: slow(store.recordScheduled),
    recordDeferral: slow(store.recordDeferral),
    recordRedrive: slow(store.recordRedrive),
    recordCancel: slow(store.recordCancel),
    recordReplay: slow(store.recordReplay),
    recordConflict: slow(store.recordConflict),
    appendAudit: slow(store.appendAudit),
    get: slow(store.get),
    listByStatus: slow(store.listByStatus),
    listRecent: slow(store.listRecent),
    listStuck: slow(store.listStuck),
  };
};

/**
 * `store` whose first result write for `eventId` never returns: the worker "dies" after the
 * target call and before recording. `release()` lets the hung call fail so the test can end.
 */
export const killAfterFirstSend = (store: EventStore, eventId: string) => {
  let died = false;
  let release: () => void = () => {};
  const hung = new Promise<never>((_, reject) => {
    release = () => reject(new Error("worker killed"));
  });
  hung.catch(() => {});
  const killing: EventStore = {
    ...store,
    recordResult: async (request) => {
      if (request.eventId === eventId && !died) {
        died = true;
        return hung;
      }
      return store.recordResult(request);
    },
  };
  return { store: killing, died: () => died, release: () => release() };
};

/**
 * `store` whose first result write for `eventId` that matches `when` fails (a throttled write,
 * say) after the attempt's effects (a retry sent, a dead-letter copy) were made.
 */
export const failFirstResultWrite = (
  store: EventStore,
  eventId: string,
  when: (request: RecordResultRequest) => boolean,
) => {
  let failed = 0;
  const failing: EventStore = {
    ...store,
    recordResult: async (request) => {
      if (request.eventId === eventId && failed === 0 && when(request)) {
        failed += 1;
        throw new StoreUnavailableError("ProvisionedThroughputExceededException (injected)");
      }
      return store.recordResult(request);
    },
  };
  return { store: failing, failures: () => failed };
};

/** `deadLetters` whose first `count` sends fail (an SQS outage, a throttle). */
export const failingDeadLetterSends = (deadLetters: DeadLetterQueue, count: number) => {
  let failed = 0;
  const failing: DeadLetterQueue = {
    ...deadLetters,
    send: async (message) => {
      if (failed < count) {
        failed += 1;
        throw new QueueUnavailableError("SendMessage to the dead-letter queue failed (injected)");
      }
      return deadLetters.send(message);
    },
  };
  return { deadLetters: failing, failures: () => failed };
};
