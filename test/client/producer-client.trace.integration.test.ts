import type { Message } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import {
  createRicochetClient,
  type RicochetClientOptions,
} from "../../lib/client/producer-client.js";
import { MAX_MESSAGE_BYTES } from "../../lib/core/envelope.js";
import { InvalidRequestError } from "../../lib/core/errors.js";
import { receiveRaw, recordRequests } from "../adapters/sqs-test-support.js";
import { anEnvelope } from "../support/factories.js";
import { createTestQueues, testClients } from "../support/local-aws.js";

/*
 * The producer client's trace option, against the SQS emulator: the context travels as the
 * `traceparent`/`tracestate` message attributes the orchestrator reads, beside an unchanged body,
 * and a context the client cannot send is refused before anything is sent.
 */
const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const TRACESTATE = "rojo=00f067aa0ba902b7";
const OTHER_TRACEPARENT = "00-11111111111111111111111111111111-2222222222222222-00";
const { sqs } = testClients();

const clientOn = async (prefix: string, options: Partial<RicochetClientOptions> = {}) => {
  const { ingressQueueUrl } = await createTestQueues(prefix);
  const client = createRicochetClient({ queueUrl: ingressQueueUrl, sqs, ...options });
  const received = async (): Promise<Message[]> => {
    const messages: Message[] = [];
    for (let batch = await receiveRaw(sqs, ingressQueueUrl); batch.length > 0; ) {
      messages.push(...batch);
      batch = await receiveRaw(sqs, ingressQueueUrl, { wait: 0 });
    }
    return messages;
  };
  return { client, received };
};

const traceOf = (message: Message | undefined) => ({
  traceparent: message?.MessageAttributes?.traceparent?.StringValue,
  tracestate: message?.MessageAttributes?.tracestate?.StringValue,
});

describe("the producer client's trace option", () => {
  it("sends the submission's trace context as attributes of every message in it, the bodies unchanged", async () => {
    const { client, received } = await clientOn("client-trace");
    const envelopes = Array.from({ length: 12 }, () => anEnvelope());

    const report = await client.submitBatch(envelopes, {
      trace: { traceparent: TRACEPARENT, tracestate: TRACESTATE },
    });

    expect(report.rejected).toEqual([]);
    const messages = await received();
    expect(messages).toHaveLength(12);
    for (const message of messages) {
      expect(traceOf(message)).toEqual({ traceparent: TRACEPARENT, tracestate: TRACESTATE });
      expect(message.MessageAttributes?.traceparent?.DataType).toBe("String");
    }
    expect(messages.map((m) => JSON.parse(m.Body ?? "") as unknown)).toEqual(
      expect.arrayContaining(envelopes),
    );
  });

  it("asks activeTrace at each submission, and a submission's own trace wins over it", async () => {
    let asked = 0;
    const { client, received } = await clientOn("client-active-trace", {
      activeTrace: () => {
        asked += 1;
        return { traceparent: OTHER_TRACEPARENT };
      },
    });
    const fromActive = anEnvelope();
    const fromOwn = anEnvelope();

    await client.submit(fromActive);
    await client.submit(fromOwn, { trace: { traceparent: TRACEPARENT } });

    const byEvent = new Map(
      (await received()).map((m) => [(JSON.parse(m.Body ?? "") as { eventId: string }).eventId, m]),
    );
    expect(traceOf(byEvent.get(fromActive.eventId)).traceparent).toBe(OTHER_TRACEPARENT);
    expect(traceOf(byEvent.get(fromOwn.eventId))).toEqual({
      traceparent: TRACEPARENT,
      tracestate: undefined,
    });
    expect(asked).toBe(1);
  });

  it("sends no trace attributes for an empty carrier (no active span)", async () => {
    const { client, received } = await clientOn("client-empty-trace", { activeTrace: () => ({}) });
    await client.submit(anEnvelope());
    const [message] = await received();
    expect(message?.MessageAttributes ?? {}).toEqual({});
  });

  it.each<[string, unknown, string]>([
    ["a malformed traceparent", { traceparent: "00-abc-def-01" }, "traceparent"],
    [
      "a malformed tracestate",
      { traceparent: TRACEPARENT, tracestate: "no spaces allowed=x y" },
      "tracestate",
    ],
    ["a tracestate alone", { tracestate: TRACESTATE }, "tracestate"],
  ])(
    "refuses %s with InvalidRequestError naming the field, and sends nothing",
    async (_name, trace, path) => {
      const { client, received } = await clientOn("client-bad-trace");
      const envelopes = [anEnvelope()];
      for (const submit of [
        () => client.submitBatch(envelopes, { trace } as never),
        () => client.submit(envelopes[0], { trace } as never),
      ]) {
        const error = await submit().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidRequestError);
        expect((error as InvalidRequestError).problems.map((p) => p.path)).toEqual([path]);
      }
      expect(await received()).toEqual([]);
    },
  );

  it("counts the trace attributes in a batch's size: two envelopes that fit a batch alone are split when traced", async () => {
    const recorder = recordRequests("SendMessageBatch");
    const clients = testClients({ middleware: [recorder.middleware] });
    const { client, received } = await clientOn("client-trace-size", { sqs: clients.sqs });
    // Each body is just under half a batch: together they fit only without the attributes.
    const padding = (envelope: ReturnType<typeof anEnvelope>) =>
      MAX_MESSAGE_BYTES / 2 - Buffer.byteLength(JSON.stringify(envelope)) - 16;
    const half = () => {
      const envelope = anEnvelope({ payload: "" });
      return { ...envelope, payload: "p".repeat(padding(envelope)) };
    };

    await client.submitBatch([half(), half()]);
    await client.submitBatch([half(), half()], {
      trace: { traceparent: TRACEPARENT, tracestate: TRACESTATE },
    });
    clients.destroy();

    expect(recorder.bodies.map((b) => (b.Entries as unknown[]).length)).toEqual([2, 1, 1]);
    expect(await received()).toHaveLength(4);
  });
});
