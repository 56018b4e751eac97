import { describe, expect, it } from "vitest";
import { sqsBilledChunks, sqsPayloadBytes } from "../../bench/support/request-counter.js";

describe("SQS billing by 64 KiB chunks", () => {
  it.each([
    [0, 1],
    [1, 1],
    [65_536, 1],
    [65_537, 2],
    [262_144, 4],
  ])("bills a %i-byte payload as %i requests", (bytes, requests) => {
    expect(sqsBilledChunks(bytes)).toBe(requests);
  });

  it("weighs what a send carries and what a receive brings back, bodies and attributes", () => {
    expect(sqsPayloadBytes({ MessageBody: "abc" }, {})).toBe(3);
    expect(sqsPayloadBytes({ Entries: [{ MessageBody: "ab" }, { MessageBody: "cd" }] }, {})).toBe(
      4,
    );
    expect(sqsPayloadBytes({ QueueUrl: "q" }, { Messages: [{ Body: "xyz" }, { Body: "é" }] })).toBe(
      5,
    );
    expect(
      sqsPayloadBytes({ MessageBody: "a", MessageAttributes: { k: { DataType: "String" } } }, {}),
    ).toBe(1 + JSON.stringify({ k: { DataType: "String" } }).length);
    expect(sqsPayloadBytes({ QueueUrl: "q", ReceiptHandle: "r" }, {})).toBe(0);
  });
});
