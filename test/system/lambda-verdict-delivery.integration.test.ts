import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../lib/core/envelope.js";
import type { PolicyOverride } from "../../lib/core/policy.js";
import { EventStatus } from "../../lib/core/status.js";
import { type LambdaStandIn, startLambdaStandIn } from "../support/lambda-stand-in.js";
import { useOrchestratorHarness } from "../support/orchestrator-harness.js";

/*
 * Lambda targets answering like HTTP receivers, end to end: the real poller, queues and table on
 * the emulators, the real Lambda SDK client and adapter, and a loopback stand-in for Lambda.
 */
let lambda: LambdaStandIn;
beforeAll(async () => {
  lambda = await startLambdaStandIn();
});
afterAll(async () => {
  await lambda.close();
});
const h = useOrchestratorHarness("lambda-verdicts", () => ({ lambdaEndpoint: lambda.endpoint }));

/** Without a verdict the first retry would wait exactly 1 s: base 1 s, no jitter. */
const ONE_SECOND_RETRIES: PolicyOverride = { maxAttempts: 3, baseDelaySeconds: 1, jitter: "none" };

const toFunction = (eventId: string, policy: PolicyOverride): Envelope => ({
  eventId,
  target: { type: "lambda", functionName: eventId },
  payload: { orderId: eventId },
  policy,
});

describe("a Lambda target's answers", () => {
  it("waits at least the 2 s a function's retry verdict asks for, then delivers on the second call", async () => {
    const id = `lambda-retry-${Date.now()}`;
    lambda.script({
      [id]: [
        { result: { ricochet: { verdict: "retry", retryAfterSeconds: 2, reason: "warming up" } } },
        { result: { ok: true } },
      ],
    });
    await h.startWorkers();

    await h.submit([toFunction(id, ONE_SECOND_RETRIES)]);
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    const [first, second] = lambda.invocationsOf(id);
    expect(lambda.invocationsOf(id)).toHaveLength(2);
    expect((second?.startedAt ?? 0) - (first?.endedAt ?? 0)).toBeGreaterThanOrEqual(2_000);
    expect(second?.event).toEqual({ orderId: id });
    expect(second?.clientContext?.custom).toEqual({ idempotencyKey: id, attempt: "2" });
    expect(record.attempts).toBe(2);
    expect(record.history[0]).toMatchObject({
      delaySeconds: 2,
      message: "function asked for a retry after 2 s: warming up",
    });
  });

  it("dead-letters an event whose function answers permanent failure after one call", async () => {
    const id = `lambda-permanent-${Date.now()}`;
    lambda.script({
      [id]: [{ error: { errorType: "RicochetPermanentError", errorMessage: "customer deleted" } }],
    });
    await h.startWorkers();

    await h.submit([toFunction(id, ONE_SECOND_RETRIES)]);
    const record = await h.waitForStatus(id, EventStatus.REJECTED);
    await h.waitForQueueEmpty();

    expect(lambda.invocationsOf(id)).toHaveLength(1);
    expect(record.attempts).toBe(1);
    const dead = (await h.deadLetters()).filter((m) => m.eventId === id);
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({
      reason: "rejected",
      attempts: 1,
      lastOutcome: { message: "function answered permanent failure: customer deleted" },
    });
  });

  it("does not retry an error type the policy lists in noRetryErrorTypes, and retries one it does not", async () => {
    const listed = `lambda-no-retry-${Date.now()}`;
    const unlisted = `lambda-unlisted-${Date.now()}`;
    const policy: PolicyOverride = { ...ONE_SECOND_RETRIES, noRetryErrorTypes: ["OrderGone"] };
    lambda.script({
      [listed]: [{ error: { errorType: "OrderGone", errorMessage: "order o-1 was deleted" } }],
      [unlisted]: [{ error: { errorType: "TypeError", errorMessage: "x is undefined" } }],
    });
    await h.startWorkers();

    await h.submit([toFunction(listed, policy), toFunction(unlisted, policy)]);
    const rejected = await h.waitForStatus(listed, EventStatus.REJECTED);
    const exhausted = await h.waitForStatus(unlisted, EventStatus.DEAD_LETTERED);
    await h.waitForQueueEmpty();

    expect(lambda.invocationsOf(listed)).toHaveLength(1);
    expect(rejected.deadLetterReason).toBe("rejected");
    expect(lambda.invocationsOf(unlisted)).toHaveLength(3);
    expect(exhausted.deadLetterReason).toBe("exhausted");
  });
});
