import { describe, expect, it } from "vitest";
import { queueArnFromUrl, toSqsRecord } from "../../lib/local/sqs-record.js";

const source = { queueArn: "arn:aws:sqs:us-east-1:000000000000:q", region: "us-east-1" };

describe("toSqsRecord", () => {
  it("shapes a received message like a Lambda SQS record", () => {
    const record = toSqsRecord(
      {
        MessageId: "id-1",
        ReceiptHandle: "rh-1",
        Body: "{}",
        MD5OfBody: "md5",
        Attributes: {
          ApproximateReceiveCount: "2",
          SentTimestamp: "100",
          SenderId: "sender",
          ApproximateFirstReceiveTimestamp: "150",
        },
        MessageAttributes: {
          text: { DataType: "String", StringValue: "v" },
          count: { DataType: "Number", StringValue: "3" },
          blob: { DataType: "Binary", BinaryValue: new Uint8Array([1, 2, 255]) },
        },
      },
      source,
      999,
    );
    expect(record).toEqual({
      messageId: "id-1",
      receiptHandle: "rh-1",
      body: "{}",
      md5OfBody: "md5",
      attributes: {
        ApproximateReceiveCount: "2",
        SentTimestamp: "100",
        SenderId: "sender",
        ApproximateFirstReceiveTimestamp: "150",
      },
      messageAttributes: {
        text: { stringValue: "v", stringListValues: [], binaryListValues: [], dataType: "String" },
        count: { stringValue: "3", stringListValues: [], binaryListValues: [], dataType: "Number" },
        blob: {
          binaryValue: "AQL/",
          stringListValues: [],
          binaryListValues: [],
          dataType: "Binary",
        },
      },
      eventSource: "aws:sqs",
      eventSourceARN: source.queueArn,
      awsRegion: "us-east-1",
    });
  });

  it("fills system attributes an emulator leaves out from the receive time", () => {
    const record = toSqsRecord({ MessageId: "id", ReceiptHandle: "rh", Body: "" }, source, 999);
    expect(record.attributes).toMatchObject({
      ApproximateReceiveCount: "1",
      SentTimestamp: "999",
      ApproximateFirstReceiveTimestamp: "999",
    });
    expect(record.messageAttributes).toEqual({});
  });
});

describe("queueArnFromUrl", () => {
  it.each([
    [
      "http://sqs.us-east-1.localhost:4566/000000000000/orders",
      "arn:aws:sqs:eu-west-1:000000000000:orders",
    ],
    [
      "https://sqs.eu-west-1.amazonaws.com/123456789012/a-b_c",
      "arn:aws:sqs:eu-west-1:123456789012:a-b_c",
    ],
  ])("names %s by account and queue name", (url, arn) => {
    expect(queueArnFromUrl(url, "eu-west-1")).toBe(arn);
  });

  it("rejects a URL without account and name", () => {
    expect(() => queueArnFromUrl("http://localhost:4566/", "us-east-1")).toThrow(/not a queue URL/);
  });
});
