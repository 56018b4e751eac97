import { setTimeout as sleep } from "node:timers/promises";
import { type MessageAttributeValue, SendMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replayEvents } from "../../lib/app/operator/replay.js";
import { createRicochetClient } from "../../lib/client/producer-client.js";
import { ENV } from "../../lib/contract/environment.js";
import { MetricName } from "../../lib/contract/metric-names.js";
import type { Envelope } from "../../lib/core/envelope.js";
import type { PolicyOverride } from "../../lib/core/policy.js";
import type { EventRecord } from "../../lib/core/record.js";
import { EventStatus } from "../../lib/core/status.js";
import { itWhereEmulated } from "../support/emulator-gaps.js";
import { anEventId, retryEverySecond } from "../support/factories.js";
import { type LambdaStandIn, startLambdaStandIn } from "../support/lambda-stand-in.js";
import { useOrchestratorHarness } from "../support/orchestrator-harness.js";

/*
 * A producer's trace context on the paths trace-context.integration.test.ts leaves out: X-Ray's
 * `AWSTraceHeader` as the only carrier, a Lambda target, an operator's replay, a `notBefore`
 * reached by hops and a breaker's deferral. Real poller, queues and table on the emulators, the
 * real SDK clients; tracing off, so the producer's context is handed on unchanged.
 */
let lambda: LambdaStandIn;
beforeAll(async () => {
  lambda = await startLambdaStandIn();
});
afterAll(async () => {
  await lambda.close();
});
const h = useOrchestratorHarness("trace-paths", () => ({ lambdaEndpoint: lambda.endpoint }));

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PRODUCER_SPAN = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${PRODUCER_SPAN}-01`;
const TRACESTATE = "rojo=00f067aa0ba902b7";
const ONE_SECOND_RETRIES: PolicyOverride = retryEverySecond(3);

const w3cCarriers = (): Record<string, MessageAttributeValue> => ({
  traceparent: { DataType: "String", StringValue: TRACEPARENT },
  tracestate: { DataType: "String", StringValue: TRACESTATE },
});

/** The trace id a `traceparent` names, or undefined when there is none. */
const traceIdOf = (traceparent: string | string[] | undefined): string | undefined =>
  typeof traceparent === "string" ? traceparent.split("-")[1] : undefined;

const traceIdsOnRecord = (record: EventRecord | undefined) =>
  record?.history.map((attempt) => attempt.traceId);

/** The receiver's `traceparent` header on each call of the event, in order. */
const traceparentsSeen = (eventId: string) =>
  h.receiver.callsFor(eventId).map((call) => call.headers.traceparent);

/**
 * Sends the body as a producer traced by X-Ray does: the context only in the `AWSTraceHeader`
 * system attribute (SendMessage, as SendMessageBatch's entries take it the same way).
 */
const sendWithXRayHeader = (body: string, header: string) =>
  h.clients.sqs.send(
    new SendMessageCommand({
      QueueUrl: h.queues.ingressQueueUrl,
      MessageBody: body,
      MessageSystemAttributes: { AWSTraceHeader: { DataType: "String", StringValue: header } },
    }),
  );

const toFunction = (eventId: string): Envelope => ({
  eventId,
  target: { type: "lambda", functionName: eventId },
  payload: { orderId: eventId },
  policy: ONE_SECOND_RETRIES,
});

describe("a producer's trace context on every path", () => {
  itWhereEmulated(
    "awsTraceHeaderKept",
    "is read from X-Ray's AWSTraceHeader alone: the receiver is sent a W3C traceparent of the same trace on each call, and each attempt on the record keeps it",
    async () => {
      const id = anEventId("xray");
      const xrayTraceId = "5759e988bd862e3fe1be46a994272793";
      h.script({ [id]: [503, 200] });
      await h.startWorkers();
      await sendWithXRayHeader(
        JSON.stringify(h.envelope(id, ONE_SECOND_RETRIES)),
        `Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1`,
      );
      const record = await h.waitForStatus(id, EventStatus.DELIVERED);

      // The retry travels with W3C attributes Ricochet wrote; the first call read X-Ray's header.
      const expected = `00-${xrayTraceId}-53995c3f42cd8ad8-01`;
      expect(traceparentsSeen(id)).toEqual([expected, expected]);
      expect(traceIdsOnRecord(record)).toEqual([xrayTraceId, xrayTraceId]);
    },
  );

  it("joins the trace a producer names through the client's trace option: every call sends the producer's traceparent and tracestate, and each attempt on the record keeps its trace id", async () => {
    const id = anEventId("client-traced");
    h.script({ [id]: [503, 200] });
    await h.startWorkers();
    const client = createRicochetClient({
      queueUrl: h.queues.ingressQueueUrl,
      sqs: h.clients.sqs,
      // What OpenTelemetry's propagator writes; the submission's own `trace` wins over it.
      activeTrace: () => ({ traceparent: `00-${"1".repeat(32)}-${PRODUCER_SPAN}-01` }),
    });
    await client.submit(h.envelope(id, ONE_SECOND_RETRIES), {
      trace: { traceparent: TRACEPARENT, tracestate: TRACESTATE },
    });
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    const calls = h.receiver.callsFor(id);
    expect(calls.map((call) => call.headers.traceparent)).toEqual([TRACEPARENT, TRACEPARENT]);
    expect(calls.map((call) => call.headers.tracestate)).toEqual([TRACESTATE, TRACESTATE]);
    expect(traceIdsOnRecord(record)).toEqual([TRACE_ID, TRACE_ID]);
  });

  it("reaches a Lambda target in the client context's custom and Custom fields on the failed call and on the retry that delivers", async () => {
    const id = anEventId("lambda-traced");
    lambda.script({
      [id]: [{ error: { errorType: "TypeError", errorMessage: "x is undefined" } }, { result: {} }],
    });
    await h.startWorkers();
    await h.submitRaw([JSON.stringify(toFunction(id))], w3cCarriers());
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    const contexts = lambda.invocationsOf(id).map((call) => call.clientContext);
    const carriers = { traceparent: TRACEPARENT, tracestate: TRACESTATE };
    const traced = { idempotencyKey: id, ...carriers };
    expect(contexts.map((context) => context?.custom)).toEqual([
      { ...traced, attempt: "1" },
      { ...traced, attempt: "2" },
    ]);
    // Where OpenTelemetry's instrumentation reads it, too.
    expect(contexts.map((context) => context?.Custom)).toEqual([carriers, carriers]);
    expect(traceIdsOnRecord(record)).toEqual([TRACE_ID, TRACE_ID]);
  });

  it("stays with an event the operator replays: the replayed call names the producer's trace, and the replay's attempt on the record keeps it", async () => {
    const id = anEventId("replay-traced");
    const envelope = h.envelope(id, ONE_SECOND_RETRIES);
    await h.startWorkers();
    await h.submitRaw([JSON.stringify(envelope)], w3cCarriers());
    await h.waitForStatus(id, EventStatus.DELIVERED);

    const report = await replayEvents(h.replayDeps(), {
      eventIds: [id],
      envelopes: [envelope],
      by: "ops",
    });
    expect(report.replayed.map((r) => r.eventId)).toEqual([id]);
    await h.waitFor(() => h.receiver.callsFor(id).length === 2);
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    const [original, replayed] = traceparentsSeen(id);
    expect(original).toBe(TRACEPARENT);
    // The record keeps the trace id only: the replay is the replayed call's parent, sampled.
    expect(traceIdOf(replayed)).toBe(TRACE_ID);
    expect(replayed).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(replayed).not.toBe(TRACEPARENT);
    expect(record.replays).toBe(1);
    expect(traceIdsOnRecord(record)).toEqual([TRACE_ID, TRACE_ID]);
  });

  it("stays with an event whose notBefore is reached by hops: the call after the hops sends the producer's traceparent", async () => {
    const id = anEventId("hop-traced");
    const dueMs = Date.now() + 3_000;
    const hops = h.metrics.get(MetricName.HOP);
    await h.startWorkers({ hopSeconds: 1 });
    const envelope = {
      ...h.envelope(id, ONE_SECOND_RETRIES),
      notBefore: new Date(dueMs).toISOString(),
    };
    await h.submitRaw([JSON.stringify(envelope)], w3cCarriers());
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    // Three seconds in hops of at most one: the context crossed at least two re-sends.
    expect(h.metrics.get(MetricName.HOP) - hops).toBeGreaterThanOrEqual(2);
    expect(h.receiver.callsFor(id)[0]?.startedAt ?? 0).toBeGreaterThanOrEqual(dueMs);
    expect(traceparentsSeen(id)).toEqual([TRACEPARENT]);
    expect(traceIdsOnRecord(record)).toEqual([TRACE_ID]);
  });

  it("stays with an event an open breaker defers before its first attempt: the call once the target recovers sends the producer's traceparent", async () => {
    const id = anEventId("deferred-traced");
    const group = "trace-breaker";
    const breaker = {
      minimumCalls: 3,
      failureRateThreshold: 0.5,
      openMs: 2_000,
      maxOpenMs: 2_000,
      probeWaitMs: 1_000,
    };
    let down = true;
    h.script((eventId) => ({ status: down && eventId.startsWith("trace-trip-") ? 503 : 200 }));
    await h.startWorkers({ env: { [ENV.CIRCUIT_BREAKER]: JSON.stringify(breaker) } });
    const tripIds = Array.from({ length: 4 }, (_, i) => `trace-trip-${i}-${Date.now()}`);
    await h.submit(tripIds.map((trip) => h.envelope(trip, retryEverySecond(), { group })));
    await h.waitForBreakerOpen();

    await h.submitRaw(
      [JSON.stringify(h.envelope(id, ONE_SECOND_RETRIES, { group }))],
      w3cCarriers(),
    );
    await waitForDeferral(id);
    down = false;
    const record = await h.waitForStatus(id, EventStatus.DELIVERED, 30_000);

    expect(traceparentsSeen(id)).toEqual([TRACEPARENT]);
    expect(traceIdsOnRecord(record)).toEqual([TRACE_ID]);
  }, 60_000);
});

/** Until the event's record says a breaker holds it back (no attempt claimed yet). */
const waitForDeferral = async (eventId: string): Promise<void> => {
  for (let waited = 0; ; waited += 250) {
    const record = await h.store.get(eventId);
    if (record?.deferral !== undefined) return;
    if (waited > 20_000) throw new Error(`${eventId} was never deferred`);
    await sleep(250);
  }
};
