import { describe, expect, it } from "vitest";
import type { AttemptResult } from "../../../lib/core/outcome.js";
import { ErrorCategory } from "../../../lib/core/policy.js";
import { type DeliveryRequest, type EventStore, MessageOrigin } from "../../../lib/core/ports.js";
import { EventStatus } from "../../../lib/core/status.js";
import { isoOf } from "../../../lib/core/time-format.js";
import { memoryOrchestrator } from "../../support/memory-orchestrator.js";

/*
 * Issue #36, finding 6: a record's attempt count is the calls made (plus the re-runs a lost lease
 * forces). A run Ricochet ends before it tries the target — past the deadline, past the budget, a
 * target its own rules refuse — gives its attempt back; such a run never retries, so the budget
 * still bounds every event. In memory, on a clock the test moves.
 */
const NOW = Date.UTC(2030, 0, 1);

const refused: AttemptResult = {
  kind: "error",
  category: ErrorCategory.TARGET_REFUSED,
  requestSent: false,
  message: "refused 169.254.169.254: a link-local address",
  durationMs: 0,
};

const world = (
  answer: (request: DeliveryRequest) => AttemptResult,
  store?: (port: EventStore, clock: { now: number }) => EventStore,
) => {
  const clock = { now: NOW };
  const built = memoryOrchestrator({
    nowMs: NOW,
    clock: () => clock.now,
    workerId: "worker-a",
    seed: 5,
    messageConcurrency: 1,
    answer,
    ...(store === undefined ? {} : { store: (port: EventStore) => store(port, clock) }),
  });
  const submit = (eventId: string, extra: Record<string, unknown> = {}) =>
    built.ingress.send(
      JSON.stringify({
        eventId,
        target: { type: "http", url: "http://169.254.169.254/latest" },
        payload: { eventId },
        ...extra,
      }),
      { generation: 0 },
      0,
      { origin: MessageOrigin.PRODUCER },
    );
  return { ...built, clock, submit };
};

describe("a record's attempt count", () => {
  it("is 0 for a target refused before any call, and its history entry says no call was made", async () => {
    const w = world(() => refused);
    w.submit("refused-0");
    await w.handleNext();

    const record = await w.store.get("refused-0");
    expect(record).toMatchObject({ status: EventStatus.REJECTED, attempts: 0 });
    expect(record?.history).toHaveLength(1);
    expect(record?.history[0]).toMatchObject({ attempt: 0, noCall: true });
    const [copy] = w.deadLetters.contents();
    expect(JSON.parse(copy?.summary ?? "{}")).toMatchObject({ reason: "rejected", attempts: 0 });
  });

  it("is 0 for an event whose deadline passed before its first attempt", async () => {
    const w = world(() => ({ kind: "response", statusCode: 200, durationMs: 1 }));
    w.submit("late-0", { deadline: isoOf(NOW - 1_000) });
    await w.handleNext();

    expect(w.calls).toEqual([]);
    expect(await w.store.get("late-0")).toMatchObject({
      status: EventStatus.DEAD_LETTERED,
      deadLetterReason: "deadline",
      attempts: 0,
    });
  });

  it("keeps the calls made before the deadline passed, and no more", async () => {
    const w = world(() => ({ kind: "response", statusCode: 503, durationMs: 1 }));
    w.submit("late-1", {
      deadline: isoOf(NOW + 1_500),
      policy: { baseDelaySeconds: 2, jitter: "none", multiplier: 1, maxDelaySeconds: 2 },
    });
    await w.handleNext();
    // The retry is due after the deadline; it is claimed then, and dead-lettered without a call.
    w.clock.now = NOW + 5_000;
    await w.handleNext().catch(() => undefined);

    const record = await w.store.get("late-1");
    expect(w.calls).toHaveLength(1);
    expect(record?.attempts).toBe(w.calls.length);
  });

  it("still spends an attempt on each refusal a producer's policy retries, so the budget ends it", async () => {
    const w = world(() => refused);
    w.submit("retried-refusal", {
      policy: {
        maxAttempts: 3,
        retryOnStatus: ["target_refused"],
        baseDelaySeconds: 1,
        jitter: "none",
      },
    });
    for (let run = 0; run < 3; run += 1) {
      await w.handleNext();
      w.clock.now += 60_000;
    }

    expect(w.ingress.size()).toBe(0);
    expect(await w.store.get("retried-refusal")).toMatchObject({
      status: EventStatus.DEAD_LETTERED,
      deadLetterReason: "exhausted",
      attempts: 3,
    });
  });

  it("gives the attempt back when a slow claim left no time to send the call, and retries it whatever the policy says of timeouts", async () => {
    const unsent: AttemptResult = {
      kind: "error",
      category: ErrorCategory.TIMEOUT,
      requestSent: false,
      message: "timed out after 0 ms before the request was sent",
      durationMs: 0,
    };
    let slowClaims = 1;
    // The first claim's write answers only once the lease it asked for has all but run out.
    const w = world(
      (request) =>
        request.timeoutMs === 0 ? unsent : { kind: "response", statusCode: 200, durationMs: 1 },
      (port, clock) => ({
        ...port,
        claim: async (request) => {
          const claimed = await port.claim(request);
          if (slowClaims-- > 0) clock.now += request.leaseMs;
          return claimed;
        },
      }),
    );
    w.submit("out-of-time", { policy: { noRetryOnStatus: ["timeout"], maxAttempts: 2 } });
    await w.handleNext();

    const waiting = await w.store.get("out-of-time");
    expect(waiting).toMatchObject({ status: EventStatus.RETRY_SCHEDULED, attempts: 0 });
    expect(waiting?.history.at(-1)).toMatchObject({ attempt: 0, noCall: true });

    w.clock.now += 60_000;
    await w.handleNext();
    expect(await w.store.get("out-of-time")).toMatchObject({
      status: EventStatus.DELIVERED,
      attempts: 1,
    });
  });
});
