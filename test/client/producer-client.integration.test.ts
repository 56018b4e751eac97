import { GetQueueAttributesCommand, SQSClient } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { createRicochetClient } from "../../lib/client/producer-client.js";
import { LOCAL_CREDENTIALS } from "../../lib/contract/local-identity.js";
import { parseEnvelope } from "../../lib/core/envelope.js";
import { InvalidEnvelopeError, ResourceNotFoundError } from "../../lib/core/errors.js";
import { missingQueueUrl, receiveRaw, recordRequests } from "../adapters/sqs-test-support.js";
import { anEnvelope } from "../support/factories.js";
import { createTestQueues, localAws, testClients } from "../support/local-aws.js";

const queueDepth = async (sqs: SQSClient, queueUrl: string): Promise<number> => {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
};

const noSleep = async () => undefined;

describe("Ricochet producer client", () => {
  const { sqs } = testClients();

  it("validates before sending: an invalid envelope is reported and never sent", async () => {
    const { ingressQueueUrl } = await createTestQueues("client-invalid");
    const client = createRicochetClient({ queueUrl: ingressQueueUrl, sqs });
    const valid = anEnvelope();
    const report = await client.submitBatch([
      { eventId: "bad-1", target: { type: "ftp" }, payload: null },
      valid,
    ]);
    expect(report.accepted.map((a) => a.eventId)).toEqual([valid.eventId]);
    expect(report.rejected).toHaveLength(1);
    expect(report.rejected[0]).toMatchObject({ eventId: "bad-1", index: 0 });
    expect(report.rejected[0]?.problems?.map((p) => p.path)).toEqual(["target.type"]);
    expect(await queueDepth(sqs, ingressQueueUrl)).toBe(1);
  });

  it("throws InvalidEnvelopeError from submit, listing every problem, and sends nothing", async () => {
    const { ingressQueueUrl } = await createTestQueues("client-submit-invalid");
    const client = createRicochetClient({ queueUrl: ingressQueueUrl, sqs });
    const error = await client.submit({ eventId: "x y" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidEnvelopeError);
    expect((error as InvalidEnvelopeError).problems.map((p) => p.path).sort()).toEqual([
      "eventId",
      "payload",
      "target",
    ]);
    expect(await queueDepth(sqs, ingressQueueUrl)).toBe(0);
  });

  it("sends the envelope itself as the body, with no schedule attributes", async () => {
    const { ingressQueueUrl } = await createTestQueues("client-body");
    const client = createRicochetClient({ queueUrl: ingressQueueUrl, sqs });
    const envelope = anEnvelope();
    const accepted = await client.submit(envelope);
    const [message] = await receiveRaw(sqs, ingressQueueUrl);
    expect(message?.MessageId).toBe(accepted.messageId);
    expect(JSON.parse(message?.Body ?? "")).toEqual(envelope);
    expect(message?.MessageAttributes ?? {}).toEqual({});
  });

  it("sends 25 envelopes in batches of ten and reports each one accepted", async () => {
    const { ingressQueueUrl } = await createTestQueues("client-batches");
    const recorder = recordRequests("SendMessageBatch");
    const clients = testClients({ middleware: [recorder.middleware] });
    const client = createRicochetClient({ queueUrl: ingressQueueUrl, sqs: clients.sqs });
    const envelopes = Array.from({ length: 25 }, () => anEnvelope());
    const report = await client.submitBatch(envelopes);
    clients.destroy();
    expect(recorder.bodies.map((b) => (b.Entries as unknown[]).length)).toEqual([10, 10, 5]);
    expect(report.rejected).toEqual([]);
    expect(report.accepted.map((a) => a.eventId)).toEqual(envelopes.map((e) => e.eventId));
    expect(new Set(report.accepted.map((a) => a.messageId)).size).toBe(25);
    expect(await queueDepth(sqs, ingressQueueUrl)).toBe(25);
  });

  it("sends a repeated event id once and reports the repeat", async () => {
    const { ingressQueueUrl } = await createTestQueues("client-duplicates");
    const client = createRicochetClient({ queueUrl: ingressQueueUrl, sqs });
    const envelope = anEnvelope();
    const other = anEnvelope();
    const report = await client.submitBatch([envelope, other, { ...envelope, payload: 2 }]);
    expect(report.accepted.map((a) => a.eventId)).toEqual([envelope.eventId, other.eventId]);
    expect(report.rejected).toEqual([
      { eventId: envelope.eventId, index: 2, error: expect.stringMatching(/duplicate.*index 0/) },
    ]);
    expect(await queueDepth(sqs, ingressQueueUrl)).toBe(2);
  });

  it("sends the bytes it validated: a payload whose toJSON gives undefined is refused up front", async () => {
    const { ingressQueueUrl } = await createTestQueues("client-tojson");
    const client = createRicochetClient({ queueUrl: ingressQueueUrl, sqs });
    const vanishing = anEnvelope({ payload: { toJSON: () => undefined } });
    const error = await client.submit(vanishing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidEnvelopeError);
    expect((error as InvalidEnvelopeError).problems.map((p) => p.path)).toEqual(["payload"]);
    expect(await queueDepth(sqs, ingressQueueUrl)).toBe(0);
  });

  it("sends the bytes it validated: a getter read twice is read once, and what is sent is valid", async () => {
    const { ingressQueueUrl } = await createTestQueues("client-getter");
    const client = createRicochetClient({ queueUrl: ingressQueueUrl, sqs });
    const base = anEnvelope();
    // Read once, the payload is shallow; read again, 70 levels deep (over the 64 allowed).
    let reads = 0;
    const deep = JSON.parse(`${"[".repeat(70)}${"]".repeat(70)}`) as unknown;
    const shifting = {
      ...base,
      payload: {
        get items(): unknown {
          reads += 1;
          return reads === 1 ? [1] : deep;
        },
      },
    };
    const accepted = await client.submit(shifting);
    const [message] = await receiveRaw(sqs, ingressQueueUrl);
    expect(message?.MessageId).toBe(accepted.messageId);
    expect(parseEnvelope(message?.Body ?? "")).toMatchObject({
      ok: true,
      envelope: { ...base, payload: { items: [1] } },
    });
  });

  it("reports an entry that cannot be JSON (a BigInt) as that entry's failure and sends the rest", async () => {
    const { ingressQueueUrl } = await createTestQueues("client-bigint");
    const client = createRicochetClient({ queueUrl: ingressQueueUrl, sqs });
    const first = anEnvelope();
    const last = anEnvelope();
    const big = anEnvelope({ payload: { amount: 10n ** 30n } });
    const report = await client.submitBatch([first, big, last]);
    expect(report.accepted.map((a) => a.eventId)).toEqual([first.eventId, last.eventId]);
    expect(report.rejected).toEqual([
      {
        eventId: big.eventId,
        index: 1,
        problems: [{ path: "", message: expect.stringMatching(/cannot be sent as JSON.*BigInt/) }],
      },
    ]);
    expect(await queueDepth(sqs, ingressQueueUrl)).toBe(2);
  });

  it("reports an envelope over 1 MiB as rejected without sending it", async () => {
    const { ingressQueueUrl } = await createTestQueues("client-size");
    const client = createRicochetClient({ queueUrl: ingressQueueUrl, sqs });
    const report = await client.submitBatch([anEnvelope({ payload: "p".repeat(1024 * 1024) })]);
    expect(report.accepted).toEqual([]);
    expect(report.rejected[0]?.error).toMatch(
      /bytes; the limit is 1040384 \(SQS's 1 MiB less room/,
    );
    expect(await queueDepth(sqs, ingressQueueUrl)).toBe(0);
  });

  it("retries a throttled batch call with backoff and accepts every event exactly once", async () => {
    const { ingressQueueUrl } = await createTestQueues("client-throttled");
    // The SDK's own retries are off so the throttling reaches the client's retry loop.
    const throttled = new SQSClient({
      endpoint: localAws().endpoints.sqs,
      region: localAws().region,
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });
    let calls = 0;
    throttled.middlewareStack.add(
      (next) => async (args) => {
        calls += 1;
        if (calls <= 2) {
          throw Object.assign(new Error("Rate exceeded"), {
            name: "ThrottlingException",
            $fault: "client",
            $metadata: { httpStatusCode: 400 },
          });
        }
        return next(args);
      },
      { step: "finalizeRequest", name: "throttle-twice" },
    );
    const waits: number[] = [];
    const client = createRicochetClient({
      queueUrl: ingressQueueUrl,
      sqs: throttled,
      random: () => 0.5,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const envelopes = [anEnvelope(), anEnvelope()];
    const report = await client.submitBatch(envelopes);
    throttled.destroy();
    expect(report.rejected).toEqual([]);
    expect(report.accepted).toHaveLength(2);
    expect(waits).toEqual([50, 100]);
    expect(await queueDepth(sqs, ingressQueueUrl)).toBe(2);
  });

  it("throws ResourceNotFoundError for a queue that does not exist", async () => {
    const { ingressQueueUrl } = await createTestQueues("client-missing");
    const client = createRicochetClient({
      queueUrl: missingQueueUrl(ingressQueueUrl),
      sqs,
      sleep: noSleep,
    });
    await expect(client.submitBatch([anEnvelope()])).rejects.toBeInstanceOf(ResourceNotFoundError);
  });
});
