import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDeadLetterCopy } from "../../../lib/app/operator/dead-letter-scan.js";
import { parseEnvelope } from "../../../lib/core/envelope.js";
import { type IngressQueue, MessageOrigin } from "../../../lib/core/ports.js";
import { memoryOrchestrator } from "../../support/memory-orchestrator.js";
import { HOSTILE_CORPUS } from "./corpus.js";

const NOW = Date.UTC(2030, 0, 1);

/** Valid envelopes sent in the same batch; one carries prototype-pollution keys in its payload. */
const VALID_BODIES = [
  JSON.stringify({
    eventId: "good-1",
    target: { type: "http", url: "https://receiver.example.com/a" },
    payload: { n: 1 },
  }),
  `{"eventId":"good-2","target":{"type":"http","url":"https://receiver.example.com/b"},"payload":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}`,
  JSON.stringify({
    eventId: "good-3",
    target: { type: "lambda", functionName: "receiver" },
    payload: "ünïcödé payload 💥 is fine",
  }),
];

const runHostileBatch = async () => {
  const sent: string[] = [];
  const { orchestrator, ingress, deadLetters, store, calls } = memoryOrchestrator({
    nowMs: NOW,
    workerId: "hostile-worker",
    seed: 1,
    messageConcurrency: 4,
    ingress: (port): IngressQueue => ({
      send: async (body, schedule, delay) => {
        sent.push(body);
        await port.send(body, schedule, delay);
      },
      changeVisibility: (message, seconds) => port.changeVisibility(message, seconds),
    }),
  });
  const bodies = [...HOSTILE_CORPUS.map((m) => m.body), ...VALID_BODIES];
  // The ingress queue takes what SQS takes; the one body over 1 MiB goes in beside it, as a
  // raw record (an emulator or a future SQS limit might let it through).
  for (const body of bodies) {
    try {
      ingress.send(body, { generation: 0 }, 0, { origin: MessageOrigin.PRODUCER });
    } catch {}
  }
  const received = ingress.receive(1_000, 360);
  const oversized = bodies.filter((b) => !received.some((r) => r.body === b));
  const batch = [
    ...received,
    ...oversized.map((body, i) => ({
      messageId: `raw-${i}`,
      receiptHandle: `raw-${i}#1`,
      body,
      origin: MessageOrigin.PRODUCER,
      schedule: { generation: 0 },
      reservedAttributes: [],
      receiveCount: 1,
      sentAtMs: NOW,
    })),
  ];
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype);
  // Lambda's longest timeout: every message fits (a Lambda target alone needs 60 s plus the margin).
  const failed = await orchestrator.processBatch(batch, () => 900_000);
  const copies = deadLetters
    .contents()
    .flatMap((m) => {
      const read = parseDeadLetterCopy(m.body, m.summary);
      return read.ok ? [read.message] : [];
    })
    .filter((m) => m.reason === "invalid_envelope");
  return { failed, copies, store, calls, sent, batch, prototypeBefore };
};

describe("hostile input through the real orchestrator", async () => {
  const run = await runHostileBatch();

  it("has a corpus of at least 50 distinct bad messages", () => {
    expect(HOSTILE_CORPUS.length).toBeGreaterThanOrEqual(50);
    expect(new Set(HOSTILE_CORPUS.map((m) => m.name)).size).toBe(HOSTILE_CORPUS.length);
    expect(new Set(HOSTILE_CORPUS.map((m) => m.body)).size).toBe(HOSTILE_CORPUS.length);
  });

  it("hands nothing back to the queue and re-enqueues nothing", () => {
    expect(run.batch).toHaveLength(HOSTILE_CORPUS.length + VALID_BODIES.length);
    expect(run.failed).toEqual([]);
    expect(run.sent).toEqual([]);
  });

  it.each(HOSTILE_CORPUS.map((m) => [m.name, m] as const))(
    "dead-letters %s as invalid_envelope with a clear problem",
    async (_name, message) => {
      // The copy keeps the body as sent; only a body too big to fit beside the summary is cut.
      const copies = run.copies.filter((c) =>
        c.bodyTruncated === true ? message.body.startsWith(c.body) : c.body === message.body,
      );
      expect(copies).toHaveLength(1);
      const problems = copies[0]?.problems ?? [];
      expect(problems.length).toBeGreaterThan(0);
      for (const problem of problems) expect(problem.message.trim()).not.toBe("");
      if (message.path !== undefined)
        expect(problems.map((p) => p.path)).toContainEqual(
          expect.stringMatching(new RegExp(`^${message.path.replace(".", "\\.")}`)),
        );
      if (message.readableId !== undefined) {
        expect(copies[0]?.eventId).toBe(message.readableId);
        const record = await run.store.get(message.readableId);
        expect(record).toMatchObject({ status: "rejected", deadLetterReason: "invalid_envelope" });
        expect(record?.lastOutcome?.message).not.toBe("");
      }
    },
  );

  it("delivers the valid messages of the same batch", async () => {
    expect(run.calls.map((c) => c.envelope.eventId).sort()).toEqual(["good-1", "good-2", "good-3"]);
    for (const id of ["good-1", "good-2", "good-3"])
      expect((await run.store.get(id))?.status).toBe("delivered");
  });

  it("dead-letters exactly the bad messages, each once", () => {
    expect(run.copies).toHaveLength(HOSTILE_CORPUS.length);
  });

  it("pollutes no prototype", () => {
    expect(Object.getOwnPropertyNames(Object.prototype)).toEqual(run.prototypeBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
  });
});

describe("parseEnvelope under fuzzing", () => {
  const answersWithoutThrowing = (body: string) => {
    const result = parseEnvelope(body);
    if (result.ok) expect(result.envelope.eventId).toMatch(/^[A-Za-z0-9]/);
    else expect(result.problems.length).toBeGreaterThan(0);
  };

  it("never throws for arbitrary strings", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 500 }), answersWithoutThrowing), {
      numRuns: 500,
    });
  });

  it("never throws for arbitrary JSON values", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => answersWithoutThrowing(JSON.stringify(value) ?? "")),
      { numRuns: 500 },
    );
  });

  it("never throws for envelopes with arbitrary values in their fields", () => {
    const field = fc.oneof(fc.jsonValue(), fc.constant(undefined));
    fc.assert(
      fc.property(
        fc.record({
          eventId: field,
          target: field,
          payload: field,
          policy: field,
          deadline: field,
        }),
        fc.record({
          type: fc.constantFrom("http", "lambda", "ftp"),
          url: fc.oneof(fc.webUrl(), fc.string()),
          timeoutMs: field,
          headers: field,
        }),
        (envelope, target) => {
          answersWithoutThrowing(JSON.stringify(envelope));
          answersWithoutThrowing(JSON.stringify({ ...envelope, target, eventId: "fuzz-1" }));
        },
      ),
      { numRuns: 300 },
    );
  });
});
