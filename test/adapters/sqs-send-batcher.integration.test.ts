import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  scheduleFromAttributes,
  scheduleToAttributes,
} from "../../lib/adapters/message-schedule.js";
import { createSqsIngressQueue } from "../../lib/adapters/sqs-ingress-queue.js";
import {
  createSqsSendBatcher,
  type OutgoingMessage,
  type SqsSendBatcher,
} from "../../lib/adapters/sqs-send-batcher.js";
import { QueueUnavailableError, ResourceNotFoundError } from "../../lib/core/errors.js";
import { itWhereEmulated } from "../support/emulator-gaps.js";
import { createTestQueues, type TestQueues, testClients } from "../support/local-aws.js";
import { missingQueueUrl, receiveRaw, recordRequests } from "./sqs-test-support.js";

/*
 * The batching sender against fauxqs through the real SDK: what goes on the wire, and how each
 * caller's promise follows its own entry.
 */
const batches = recordRequests("SendMessageBatch");
const singles = recordRequests("SendMessage");
const clients = testClients({ middleware: [batches.middleware, singles.middleware] });
let queues: TestQueues;

beforeAll(async () => {
  queues = await createTestQueues("send-batcher");
});
afterAll(() => clients.destroy());

const message = (n: number, delaySeconds = 0): OutgoingMessage => ({
  body: JSON.stringify({ n }),
  attributes: scheduleToAttributes({ generation: n }),
  delaySeconds,
});

/** A batcher on the test queue (or `queueUrl`) over the recording clients. */
const batcherWith = (
  timing: { windowMs: number; gatherMaxMs?: number },
  queueUrl: string = queues.internalQueueUrl,
) => createSqsSendBatcher({ sqs: clients.sqs, queueUrl, ...timing });

/** Requests made while `run` ran: SendMessageBatch entry counts, and SendMessage calls. */
const onTheWire = async (run: () => Promise<unknown>) => {
  const batchesBefore = batches.bodies.length;
  const singlesBefore = singles.bodies.length;
  await run();
  return {
    batchSizes: batches.bodies
      .slice(batchesBefore)
      .map((body) => (body.Entries as unknown[]).length),
    singles: singles.bodies.length - singlesBefore,
  };
};

/** Fresh queues and an ingress port over them that batches its sends. */
const batchingIngress = async (
  prefix: string,
  batching: { sendWindowMs: number; sendGatherMaxMs?: number },
) => {
  const created = await createTestQueues(prefix);
  const ingress = createSqsIngressQueue({
    sqs: clients.sqs,
    ingressQueueUrl: created.ingressQueueUrl,
    internalQueueUrl: created.internalQueueUrl,
    ...batching,
  });
  return { created, ingress };
};

const drain = async (queueUrl: string, expected: number) => {
  const received: Awaited<ReturnType<typeof receiveRaw>> = [];
  for (let i = 0; i < 10 && received.length < expected; i += 1) {
    received.push(...(await receiveRaw(clients.sqs, queueUrl, { wait: 1 })));
  }
  return received;
};

describe("SQS send batcher", () => {
  it("sends concurrent messages as one SendMessageBatch, each with its own attributes and delay", async () => {
    const { internalQueueUrl } = await createTestQueues("batcher-one");
    const batcher = batcherWith({ windowMs: 20 }, internalQueueUrl);
    const wire = await onTheWire(() =>
      Promise.all([1, 2, 3, 4, 5, 6, 7].map((n) => batcher.send(message(n)))),
    );
    expect(wire).toEqual({ batchSizes: [7], singles: 0 });
    const received = await drain(internalQueueUrl, 7);
    const generations = received.map((m) => scheduleFromAttributes(m.MessageAttributes).generation);
    expect(generations.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    for (const m of received) {
      const { n } = JSON.parse(m.Body ?? "{}") as { n: number };
      expect(scheduleFromAttributes(m.MessageAttributes).generation).toBe(n);
    }
  });

  it("sends a full batch at once and the rest after the window: 12 sends, 10 + 2", async () => {
    const batcher = batcherWith({ windowMs: 20 });
    const wire = await onTheWire(() =>
      Promise.all(Array.from({ length: 12 }, (_, n) => batcher.send(message(n)))),
    );
    expect(wire).toEqual({ batchSizes: [10, 2], singles: 0 });
  });

  it("keeps each request under the batch payload limit: 3 × 100 KiB go as a batch of 2 and a single", async () => {
    const batcher = batcherWith({ windowMs: 20 });
    const big = (n: number): OutgoingMessage => ({ ...message(n), body: "x".repeat(100 * 1024) });
    const wire = await onTheWire(() => Promise.all([1, 2, 3].map((n) => batcher.send(big(n)))));
    expect(wire).toEqual({ batchSizes: [2], singles: 1 });
  });

  it("sends a message alone as a plain SendMessage when nothing joins it in the window", async () => {
    const batcher = batcherWith({ windowMs: 5 });
    const wire = await onTheWire(() => batcher.send(message(1)));
    expect(wire).toEqual({ batchSizes: [], singles: 1 });
  });

  itWhereEmulated(
    "nulBodyRefused",
    "rejects only the send whose entry SQS refused; the others are delivered",
    async () => {
      const { internalQueueUrl } = await createTestQueues("batcher-partial");
      const batcher = batcherWith({ windowMs: 20 }, internalQueueUrl);
      // U+0000 is outside the characters SQS accepts in a body: the entry fails, the batch does not.
      const refused: OutgoingMessage = { ...message(2), body: "bad\u0000body" };
      const settled = await Promise.allSettled([
        batcher.send(message(1)),
        batcher.send(refused),
        batcher.send(message(3)),
      ]);
      expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      const reason = (settled[1] as PromiseRejectedResult).reason as QueueUnavailableError;
      expect(reason).toBeInstanceOf(QueueUnavailableError);
      expect(reason.message).toContain("InvalidMessageContents");
      expect(reason.context).toMatchObject({ operation: "SendMessageBatch", transient: false });
      const received = await drain(internalQueueUrl, 2);
      expect(received.map((m) => m.Body).sort()).toEqual([
        JSON.stringify({ n: 1 }),
        JSON.stringify({ n: 3 }),
      ]);
    },
  );

  it("rejects every send of a batch the queue refused as a whole", async () => {
    const batcher = batcherWith({ windowMs: 20 }, missingQueueUrl(queues.internalQueueUrl));
    const settled = await Promise.allSettled([1, 2, 3].map((n) => batcher.send(message(n))));
    for (const s of settled) {
      expect(s.status).toBe("rejected");
      expect((s as PromiseRejectedResult).reason).toBeInstanceOf(ResourceNotFoundError);
    }
  });

  it("batches the ingress port's re-sends when given a window, on the internal queue", async () => {
    const { created, ingress } = await batchingIngress("batcher-ingress", { sendWindowMs: 20 });
    const wire = await onTheWire(() =>
      Promise.all([1, 2, 3].map((n) => ingress.send(`{"n":${n}}`, { generation: n }, 2_000))),
    );
    expect(wire).toEqual({ batchSizes: [3], singles: 0 });
    const sent = batches.bodies.at(-1) as { QueueUrl: string; Entries: { DelaySeconds: number }[] };
    expect(sent.QueueUrl).toBe(created.internalQueueUrl);
    expect(sent.Entries.map((e) => e.DelaySeconds)).toEqual([900, 900, 900]);
  });

  describe("gathered in a scope (one invocation's messages)", () => {
    /** A gathering scope of `batcher` with `running` messages begun. */
    const scopeOf = (batcher: SqsSendBatcher, running: number) => {
      const scope = batcher.gather();
      for (let i = 0; i < running; i += 1) scope.begin();
      return scope;
    };

    /** A scope's message: begins now, after `afterMs` sends (or not) and ends. */
    const runMessage = async (
      scope: ReturnType<ReturnType<typeof createSqsSendBatcher>["gather"]>,
      afterMs: number,
      send: OutgoingMessage | undefined,
    ) => {
      await sleep(afterMs);
      try {
        if (send !== undefined) await scope.send(send);
      } finally {
        scope.end();
      }
    };

    it("holds a send until the scope's other messages have sent or ended: three failures 60 ms apart leave in one request", async () => {
      const scope = scopeOf(batcherWith({ windowMs: 5, gatherMaxMs: 2_000 }), 4);
      const wire = await onTheWire(() =>
        Promise.all([
          runMessage(scope, 0, message(1)),
          runMessage(scope, 60, message(2)),
          runMessage(scope, 90, undefined),
          runMessage(scope, 120, message(3)),
        ]),
      );
      expect(wire).toEqual({ batchSizes: [3], singles: 0 });
    });

    it("sends at once when the scope's last running message sends: the window is not waited", async () => {
      const scope = scopeOf(batcherWith({ windowMs: 5_000, gatherMaxMs: 10_000 }), 2);
      const started = Date.now();
      const wire = await onTheWire(() =>
        Promise.all([runMessage(scope, 0, message(1)), runMessage(scope, 30, message(2))]),
      );
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(wire).toEqual({ batchSizes: [2], singles: 0 });
    });

    it("waits no longer than gatherMaxMs for a slow sibling: the early failure goes alone, before the sibling ends", async () => {
      const scope = scopeOf(batcherWith({ windowMs: 5, gatherMaxMs: 50 }), 2);
      let sentAt = 0;
      const started = Date.now();
      const wire = await onTheWire(() =>
        Promise.all([
          runMessage(scope, 0, message(1)).then(() => {
            sentAt = Date.now() - started;
          }),
          runMessage(scope, 600, message(2)),
        ]),
      );
      expect(sentAt).toBeLessThan(500);
      expect(wire).toEqual({ batchSizes: [], singles: 2 });
    });

    it("sends as soon as the oldest send's scope is idle, taking along what another scope gathered meanwhile", async () => {
      const batcher = batcherWith({ windowMs: 5, gatherMaxMs: 5_000 });
      const first = scopeOf(batcher, 2);
      const second = scopeOf(batcher, 2);
      // The second scope's other message is still running throughout: the sends settle anyway.
      const wire = await onTheWire(() =>
        Promise.all([
          runMessage(first, 0, message(1)),
          runMessage(second, 10, message(2)),
          runMessage(first, 40, undefined),
        ]),
      );
      second.end();
      expect(wire).toEqual({ batchSizes: [2], singles: 0 });
    });

    it("gathers through the ingress port's scope: the port sends a batch's re-sends together", async () => {
      const { created, ingress } = await batchingIngress("batcher-gather", {
        sendWindowMs: 5,
        sendGatherMaxMs: 2_000,
      });
      const gathering = ingress.gatherSends?.();
      if (gathering === undefined) throw new Error("a batching ingress queue gathers sends");
      gathering.begin();
      gathering.begin();
      const resend = async (n: number, afterMs: number) => {
        await sleep(afterMs);
        await gathering.queue.send(`{"n":${n}}`, { generation: n }, 1);
        gathering.end();
      };
      const wire = await onTheWire(() => Promise.all([resend(1, 0), resend(2, 80)]));
      expect(wire).toEqual({ batchSizes: [2], singles: 0 });
      expect(await drain(created.internalQueueUrl, 2)).toHaveLength(2);
    });
  });
});
