import { describe, expect, it } from "vitest";
import { MAX_ENVELOPE_BYTES, utf8Bytes } from "../../lib/core/envelope.js";
import { EventStatus } from "../../lib/core/status.js";
import { VISIBILITY_TIMEOUT_FACTOR } from "../../lib/infra/retry-orchestrator-props.js";
import { useOrchestratorHarness } from "../support/orchestrator-harness.js";

/*
 * Faults under the deployed timing ratios: the queue's visibility timeout is
 * VISIBILITY_TIMEOUT_FACTOR × the function timeout (here 10 s → 60 s, scaled down in time, not in
 * ratio) and SQS parks a message after the test queues' maxReceiveCount receives. A fault must
 * cost at most a lease, never a visibility timeout, and never leave a dead-letter copy behind
 * for an event that ends delivered.
 */
const FUNCTION_TIMEOUT_MS = 10_000;
const deployed = {
  functionTimeoutMs: FUNCTION_TIMEOUT_MS,
  visibilityTimeoutSeconds: (FUNCTION_TIMEOUT_MS / 1000) * VISIBILITY_TIMEOUT_FACTOR,
};
/** Target timeout 1 s + the harness's 1 s lease margin: the lease is about 2 s. */
const TARGET = { timeoutMs: 1_000 };

const h = useOrchestratorHarness("deployed-ratios");

const now = { baseDelaySeconds: 1, multiplier: 1, maxDelaySeconds: 1, jitter: "none" as const };

describe("under the deployed timing ratios", () => {
  it("delivers within a lease when the result write after a sent retry fails once, with no dead-letter copy", async () => {
    const id = "result-write-fails";
    h.script({ [id]: [503, 200] });
    const faulty = h.failFirstResultWrite(id, (r) => r.status === EventStatus.RETRY_SCHEDULED);
    await h.startWorkers({ ...deployed, store: faulty.store });
    const started = Date.now();
    await h.submit([h.envelope(id, now, TARGET)]);
    // Well under the 60 s visibility timeout the source message waits out.
    const record = await h.waitForStatus(id, EventStatus.DELIVERED, 15_000);
    const tookMs = Date.now() - started;
    // The failed attempt's source message returns only after the 60 s visibility timeout, as a
    // stale copy that is dropped; nothing else may be left to park in the dead-letter queue.

    expect(faulty.failures()).toBe(1);
    expect(tookMs).toBeLessThan(15_000);
    expect(h.receiver.callsFor(id)).toHaveLength(2);
    expect(record.attempts).toBe(2);
    expect((await h.deadLetters()).filter((m) => m.eventId === id)).toEqual([]);
  }, 90_000);

  it("never calls beyond the budget when the dead-letter send after the last attempt fails", async () => {
    const id = "dead-letter-send-fails";
    h.script({ [id]: [400, 400] });
    const failing = h.failingDeadLetterSends(1);
    // A short visibility timeout: the source message comes back soon after the failed send.
    await h.startWorkers({ visibilityTimeoutSeconds: 3, deadLetters: failing.deadLetters });
    await h.submit([h.envelope(id, { maxAttempts: 1 }, TARGET)]);
    const record = await h.waitForStatus(id, EventStatus.REJECTED, 30_000);

    expect(failing.failures()).toBe(1);
    expect(h.receiver.callsFor(id)).toHaveLength(1);
    // The takeover claimed a second run and finished the first one's decision with it, without a
    // call: it gave that run's attempt back, so the count is the one call made.
    expect(record.attempts).toBe(1);
    expect(record.lastOutcome?.statusCode).toBe(400);
    expect(record.pendingDeadLetter).toBeUndefined();
    expect((await h.deadLetters()).filter((m) => m.eventId === id)).toHaveLength(1);
  }, 60_000);

  it("finishes a rejection whose result write failed after its copy was sent, never calling a receiver that now accepts", async () => {
    const id = "rejection-write-fails";
    // A second call would be answered 200: the event delivered beside its "rejected" copy.
    h.script({ [id]: [400, 200] });
    const faulty = h.failFirstResultWrite(id, (r) => r.status === EventStatus.REJECTED);
    await h.startWorkers({ visibilityTimeoutSeconds: 3, store: faulty.store });
    await h.submit([h.envelope(id, {}, TARGET)]);
    const record = await h.waitForStatus(id, EventStatus.REJECTED, 30_000);

    expect(faulty.failures()).toBe(1);
    expect(h.receiver.callsFor(id)).toHaveLength(1);
    expect(record.history.map((entry) => entry.statusCode)).toEqual([400]);
    expect(record.pendingDeadLetter).toBeUndefined();
    // The takeover cannot know the first copy left, so it sends the same copy again; redrive
    // moves one and deletes the other as already redriven.
    const copies = (await h.deadLetters()).filter((m) => m.eventId === id);
    expect(copies.length).toBeGreaterThanOrEqual(1);
    expect(new Set(copies.map((m) => `${m.reason} ${m.attempts} ${m.deadLetteredAt}`)).size).toBe(
      1,
    );
    expect(copies[0]?.reason).toBe("rejected");
  }, 60_000);

  it("calls a number-heavy body just under the size limit once with maxAttempts 1, and dead-letters it byte for byte", async () => {
    const id = "numbers-1e20";
    h.script({ [id]: [400] });
    const head = `{"eventId":"${id}","target":{"type":"http","url":"${h.baseUrl}/${id}"},"policy":{"maxAttempts":1},"payload":[`;
    const numbers = ["1e20", "1e+16", "1e20", "-0"];
    const items: string[] = [];
    let size = utf8Bytes(head) + 2;
    for (let i = 0; size + 40 < MAX_ENVELOPE_BYTES; i += 1) {
      const item = numbers[i % numbers.length] ?? "1e20";
      items.push(item);
      size += item.length + 1;
    }
    const body = `${head}${items.join(",")}]}`;
    expect(utf8Bytes(body)).toBeLessThanOrEqual(MAX_ENVELOPE_BYTES);
    // Re-serialised, this body would be several times SQS's limit.
    expect(utf8Bytes(JSON.stringify(JSON.parse(body)))).toBeGreaterThan(2 * MAX_ENVELOPE_BYTES);

    await h.startWorkers(deployed);
    await h.submitRaw([body]);
    // The copy is sent before the record says rejected, so it is there once the record is.
    const record = await h.waitForStatus(id, EventStatus.REJECTED, 30_000);

    expect(h.receiver.callsFor(id)).toHaveLength(1);
    expect(record.attempts).toBe(1);
    expect(record.expiresAt).toBeDefined();
    const [copy] = (await h.deadLetters()).filter((m) => m.eventId === id);
    expect(copy?.body).toBe(body);

    h.script({ [id]: [200] });
    const report = await h.redrive({ eventIds: [id], extraAttempts: 1, by: "operator-test" });
    expect(report.failed).toEqual([]);
    expect(report.moved.map((m) => m.eventId)).toEqual([id]);
    await h.waitForStatus(id, EventStatus.DELIVERED, 30_000);
    expect(h.receiver.callsFor(id)[1]?.body).toBe(h.receiver.callsFor(id)[0]?.body);
  }, 90_000);
});
