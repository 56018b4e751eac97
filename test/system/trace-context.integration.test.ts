import type { MessageAttributeValue } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOtelTracer } from "../../lib/adapters/otel-tracer.js";
import { EventStatus } from "../../lib/core/status.js";
import { SpanName } from "../../lib/core/tracing.js";
import { useOrchestratorHarness } from "../support/orchestrator-harness.js";
import { OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";

/*
 * A producer's W3C trace context, end to end on the real emulators, poller and receiver: read
 * from the message's `traceparent`/`tracestate` attributes, carried on every retry Ricochet
 * re-sends, handed to the receiver on each call and kept with each attempt on the record.
 */
const h = useOrchestratorHarness("trace-context");

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

const retryIn = (seconds: number) => ({
  baseDelaySeconds: seconds,
  multiplier: 1,
  maxDelaySeconds: seconds,
  jitter: "none" as const,
});

const carriers = (traceparent: string, tracestate?: string) => {
  const attributes: Record<string, MessageAttributeValue> = {
    traceparent: { DataType: "String", StringValue: traceparent },
  };
  if (tracestate !== undefined) {
    attributes.tracestate = { DataType: "String", StringValue: tracestate };
  }
  return attributes;
};

describe("a producer's trace context", () => {
  it("reaches the receiver on every call of an event delivered at its third attempt, and each attempt on the record names its trace", async () => {
    const id = `traced-${Date.now()}`;
    h.script({ [id]: [503, 503, 200] });
    await h.startWorkers();
    await h.submitRaw(
      [JSON.stringify(h.envelope(id, retryIn(1)))],
      carriers(TRACEPARENT, "rojo=00f067aa0ba902b7"),
    );
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    const calls = h.receiver.callsFor(id);
    expect(calls.map((c) => [c.headers.traceparent, c.headers.tracestate])).toEqual([
      [TRACEPARENT, "rojo=00f067aa0ba902b7"],
      [TRACEPARENT, "rojo=00f067aa0ba902b7"],
      [TRACEPARENT, "rojo=00f067aa0ba902b7"],
    ]);
    expect(record.attempts).toBe(3);
    expect(record.history.map((a) => a.traceId)).toEqual([TRACE_ID, TRACE_ID, TRACE_ID]);
  });

  it("stays with an event dead-lettered and redriven: the copy carries it and the redriven call sends it", async () => {
    const id = `traced-redrive-${Date.now()}`;
    h.script({ [id]: [400, 200] });
    await h.startWorkers();
    await h.submitRaw([JSON.stringify(h.envelope(id, retryIn(1)))], carriers(TRACEPARENT));
    await h.waitForStatus(id, EventStatus.REJECTED);
    const copy = (await h.deadLetters()).find((m) => m.eventId === id);
    expect(copy?.traceparent).toBe(TRACEPARENT);

    await h.redrive({ eventIds: [id], by: "ops" });
    await h.waitForStatus(id, EventStatus.DELIVERED);
    expect(h.receiver.callsFor(id).map((c) => c.headers.traceparent)).toEqual([
      TRACEPARENT,
      TRACEPARENT,
    ]);
  });

  it.each([
    ["garbage", "not-a-traceparent"],
    ["an all-zero trace id", `00-${"0".repeat(32)}-00f067aa0ba902b7-01`],
    ["an oversized header", `01-${TRACE_ID}-00f067aa0ba902b7-01-${"a".repeat(4096)}`],
  ])("is ignored when it is %s: the event is delivered with no trace", async (name, value) => {
    const id = `untraced-${name.replace(/\W+/g, "-")}-${Date.now()}`;
    h.script({ [id]: [503, 200] });
    await h.startWorkers();
    await h.submitRaw([JSON.stringify(h.envelope(id, retryIn(1)))], carriers(value, "x=1"));
    const record = await h.waitForStatus(id, EventStatus.DELIVERED);

    const calls = h.receiver.callsFor(id);
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => [c.headers.traceparent, c.headers.tracestate])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
    ]);
    expect(record.history.map((a) => a.traceId)).toEqual([undefined, undefined]);
  });
});

/** The spans as an indented tree, for a person reading the run (TRACE_TREE=1 prints it). */
const treeOf = (spans: readonly ReceivedSpan[], root: string | undefined, depth = 0): string[] =>
  spans
    .filter((span) => span.parentSpanId === root)
    .flatMap((span) => [
      `${"  ".repeat(depth)}${span.name} ${span.spanId} attempt=${String(span.attributes["ricochet.attempt"] ?? "-")} generation=${String(span.attributes["ricochet.generation"])} ${String(span.attributes["ricochet.outcome"] ?? span.attributes["ricochet.verdict"] ?? "")}`,
      ...treeOf(spans, span.spanId, depth + 1),
    ]);

describe("with tracing on", () => {
  const otlp = new OtlpReceiver();
  let endpoint = "";
  beforeAll(async () => {
    endpoint = await otlp.start();
  });
  afterAll(() => otlp.stop());

  it("exports a span per message with a child for each step, each message a child of the send that made it, and hands the receiver its call's span", async () => {
    const id = `traced-spans-${Date.now()}`;
    const producerSpan = "00f067aa0ba902b7";
    h.script({ [id]: [503, 503, 200] });
    const tracer = createOtelTracer({ kind: "otlp", url: endpoint });
    await h.startWorkers({ tracer });
    await h.submitRaw([JSON.stringify(h.envelope(id, retryIn(1)))], carriers(TRACEPARENT));
    await h.waitForStatus(id, EventStatus.DELIVERED);
    // The record says delivered a moment before the last message's span ends: flush until it is in.
    const spansOf = () => otlp.spans.filter((span) => span.attributes["ricochet.event_id"] === id);
    await expect
      .poll(async () => {
        await tracer.flush();
        return spansOf().filter((span) => span.name === SpanName.MESSAGE).length;
      })
      .toBe(3);

    const spans = spansOf();
    const messages = spans.filter((span) => span.name === SpanName.MESSAGE);
    const calls = spans.filter((span) => span.name === SpanName.TARGET_CALL);
    expect(messages).toHaveLength(3);
    expect(calls).toHaveLength(3);
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([TRACE_ID]));
    const resends = spans.filter((span) => span.name === SpanName.RESEND);
    expect(resends.map((span) => span.attributes["ricochet.generation"])).toEqual([1, 2]);
    // Each retry's message is the child of the send that made it, as a consumer of its producer.
    expect(messages.map((span) => span.parentSpanId)).toEqual([
      producerSpan,
      resends[0]?.spanId,
      resends[1]?.spanId,
    ]);
    expect(resends.map((span) => span.parentSpanId)).toEqual([
      messages[0]?.spanId,
      messages[1]?.spanId,
    ]);
    expect(calls.map((span) => span.parentSpanId)).toEqual(messages.map((span) => span.spanId));
    // Each message's steps are its children, in the order they ran: two retries re-sent, the
    // third attempt's result written. Every write and send is there, and nothing else.
    // A retry's send has the next message as its own child, so only a message's direct
    // children are read here.
    const stepsOf = (message: ReceivedSpan | undefined) =>
      spans
        .filter((span) => span.parentSpanId === message?.spanId)
        .sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0))
        .map((span) => [
          span.name,
          span.attributes["ricochet.write"] ?? span.attributes["ricochet.claim"],
        ]);
    const retried = [
      [SpanName.ADMISSION, undefined],
      [SpanName.GATE, undefined],
      [SpanName.CLAIM, "claimed"],
      [SpanName.TARGET_CALL, undefined],
      [SpanName.RESEND, undefined],
      [SpanName.RESULT_WRITE, "result"],
    ];
    expect(stepsOf(messages[0])).toEqual(retried);
    expect(stepsOf(messages[1])).toEqual(retried);
    expect(stepsOf(messages[2])).toEqual([
      [SpanName.ADMISSION, undefined],
      [SpanName.GATE, undefined],
      [SpanName.CLAIM, "claimed"],
      [SpanName.TARGET_CALL, undefined],
      [SpanName.RESULT_WRITE, "result"],
    ]);
    expect(calls.map((span) => span.attributes["http.response.status_code"])).toEqual([
      503, 503, 200,
    ]);
    expect(calls.map((span) => span.attributes["http.request.resend_count"])).toEqual([0, 1, 2]);
    expect(calls[0]?.attributes["url.full"]).toBe(`${h.baseUrl}/${id}`);
    // No header, payload or credential: only the attributes the design names.
    for (const span of spans) {
      for (const key of Object.keys(span.attributes)) {
        expect(key).toMatch(/^(ricochet|http\.re|url\.full|error\.type|messaging)/);
      }
    }
    const seen = h.receiver.callsFor(id).map((c) => c.headers.traceparent);
    expect(seen).toEqual(calls.map((span) => `00-${TRACE_ID}-${span.spanId}-01`));
    if (process.env.TRACE_TREE === "1") {
      process.stdout.write(
        `${[`producer ${producerSpan}`, ...treeOf(spans, producerSpan, 1)].join("\n")}\nreceiver saw: ${seen.join(", ")}\n`,
      );
    }
  });

  it("traces a redrive as a request span of its own, and runs the event's trace on through the redrive's send to its next attempt", async () => {
    const id = `traced-redrive-spans-${Date.now()}`;
    h.script({ [id]: [400, 200] });
    const tracer = createOtelTracer({ kind: "otlp", url: endpoint });
    await h.startWorkers({ tracer });
    await h.submitRaw([JSON.stringify(h.envelope(id, retryIn(1)))], carriers(TRACEPARENT));
    await h.waitForStatus(id, EventStatus.REJECTED);
    await h.operatorRequest({ action: "redrive", eventIds: [id], by: "ops" }, tracer);
    await h.waitForStatus(id, EventStatus.DELIVERED);
    const messagesOf = () =>
      otlp.spans.filter(
        (span) => span.name === SpanName.MESSAGE && span.attributes["ricochet.event_id"] === id,
      );
    const delivered = (span: ReceivedSpan) =>
      span.attributes["ricochet.generation"] === 1 && span.attributes["ricochet.verdict"] === "ack";
    await expect
      .poll(async () => {
        await tracer.flush();
        return messagesOf().some(delivered);
      })
      .toBe(true);

    // The redriven message may be read before the redrive's record write lands (sent first, so
    // that nothing is lost): that copy is put back ("ahead") and read again, in the same trace.
    const [rejected, ...redriven] = messagesOf();
    const request = otlp.spans.find(
      (span) =>
        span.name === SpanName.OPERATOR_REQUEST && span.attributes["ricochet.report.moved"] === 1,
    );
    expect(request?.parentSpanId).toBeUndefined();
    expect(request?.traceId).not.toBe(TRACE_ID);
    expect(request?.attributes).toMatchObject({
      "ricochet.operator.action": "redrive",
      "ricochet.dry_run": false,
      "ricochet.report.skipped": 0,
      "ricochet.report.failed": 0,
    });
    const underRequest = otlp.spans.filter((span) => span.parentSpanId === request?.spanId);
    expect(underRequest.map((span) => [span.name, span.attributes["ricochet.write"]])).toEqual([
      [SpanName.RESULT_WRITE, "redrive"],
    ]);
    // The redrive's send is in the event's trace: after the dead-lettered message, before the next.
    const send = otlp.spans.find(
      (span) =>
        span.name === SpanName.RESEND && span.attributes["ricochet.operator.action"] === "redrive",
    );
    expect(send?.traceId).toBe(TRACE_ID);
    expect(send?.parentSpanId).toBe(rejected?.spanId);
    expect(redriven.map((span) => span.parentSpanId)).toEqual(redriven.map(() => send?.spanId));
    expect(redriven.some(delivered)).toBe(true);
  });
});
