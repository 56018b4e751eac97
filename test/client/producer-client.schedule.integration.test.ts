import { describe, expect, it } from "vitest";
import { createRicochetClient } from "../../lib/client/producer-client.js";
import { InvalidEnvelopeError, InvalidRequestError } from "../../lib/core/errors.js";
import { receiveRaw } from "../adapters/sqs-test-support.js";
import { anEnvelope } from "../support/factories.js";
import { createTestQueues, testClients } from "../support/local-aws.js";

/*
 * The producer client's schedule option, against the SQS emulator: what reaches the queue is the
 * envelope with its `notBefore`, and a schedule no attempt could keep never reaches it.
 */
const NOW = Date.parse("2030-01-01T00:00:00Z");
const { sqs } = testClients();

const clientOn = async (prefix: string) => {
  const { ingressQueueUrl } = await createTestQueues(prefix);
  const client = createRicochetClient({ queueUrl: ingressQueueUrl, sqs, now: () => NOW });
  const sent = async () =>
    (await receiveRaw(sqs, ingressQueueUrl)).map((m) => JSON.parse(m.Body ?? "") as unknown);
  return { client, sent };
};

describe("the producer client's schedule option", () => {
  it("sends every envelope of a batch with the notBefore a delay asks for", async () => {
    const { client, sent } = await clientOn("client-delay");
    const envelopes = [anEnvelope(), anEnvelope()];

    const report = await client.submitBatch(envelopes, { delaySeconds: 3600 });

    expect(report.rejected).toEqual([]);
    expect(await sent()).toEqual(
      expect.arrayContaining(
        envelopes.map((e) => ({ ...e, notBefore: "2030-01-01T01:00:00.000Z" })),
      ),
    );
  });

  it("sends one envelope with the instant a Date names", async () => {
    const { client, sent } = await clientOn("client-at");
    const envelope = anEnvelope();

    await client.submit(envelope, { notBefore: new Date("2030-01-02T09:30:00+02:00") });

    expect(await sent()).toEqual([{ ...envelope, notBefore: "2030-01-02T07:30:00.000Z" }]);
  });

  it.each([
    [
      "after the envelope's deadline",
      anEnvelope({ deadline: "2030-01-01T00:30:00Z" }),
      "notBefore: must not be after deadline",
    ],
    [
      "after its policy's deadlineSeconds from now",
      anEnvelope({ policy: { deadlineSeconds: 1800 } }),
      "notBefore: must not be after the policy's deadline (deadlineSeconds 1800 from submission)",
    ],
  ])("refuses a schedule %s and sends nothing", async (_name, envelope, message) => {
    const { client, sent } = await clientOn("client-late");

    const error = await client.submit(envelope, { delaySeconds: 3600 }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InvalidEnvelopeError);
    expect((error as InvalidEnvelopeError).message).toContain(message);
    expect(await sent()).toEqual([]);
  });

  it("refuses an envelope's own notBefore more than 14 days ahead before sending it", async () => {
    const { client, sent } = await clientOn("client-far");
    const far = anEnvelope({ notBefore: "2030-01-20T00:00:00Z" });

    const report = await client.submitBatch([far]);

    expect(report.rejected[0]?.problems?.[0]).toMatchObject({
      path: "notBefore",
      message: expect.stringContaining("must be at most 1209600 s (14 days) ahead"),
    });
    expect(await sent()).toEqual([]);
  });

  it("reports an envelope naming another notBefore and sends the rest", async () => {
    const { client, sent } = await clientOn("client-conflict");
    const own = anEnvelope({ notBefore: "2030-01-01T05:00:00Z" });
    const plain = anEnvelope();

    const report = await client.submitBatch([own, plain], { delaySeconds: 60 });

    expect(report.accepted.map((a) => a.eventId)).toEqual([plain.eventId]);
    expect(report.rejected).toEqual([
      {
        eventId: own.eventId,
        index: 0,
        problems: [
          {
            path: "notBefore",
            message:
              'is "2030-01-01T05:00:00Z" in the envelope, but the submission\'s schedule asks for 2030-01-01T00:01:00.000Z',
          },
        ],
      },
    ]);
    expect(await sent()).toHaveLength(1);
  });

  it("refuses both an instant and a delay before sending anything", async () => {
    const { client, sent } = await clientOn("client-both");

    await expect(
      client.submitBatch([anEnvelope()], { notBefore: new Date(NOW), delaySeconds: 60 }),
    ).rejects.toThrow(InvalidRequestError);
    expect(await sent()).toEqual([]);
  });
});
