import { describe, expect, it } from "vitest";
import { billPerMillionEvents, usdPerMillionEvents } from "../../bench/support/list-prices.js";

describe("usdPerMillionEvents", () => {
  it.each([
    ["nothing used", { sqsRequests: 0, dynamoWriteUnits: 0, dynamoReadUnits: 0 }, 0],
    ["one SQS request", { sqsRequests: 1, dynamoWriteUnits: 0, dynamoReadUnits: 0 }, 0.4],
    ["one write unit", { sqsRequests: 0, dynamoWriteUnits: 1, dynamoReadUnits: 0 }, 0.625],
    ["one read unit", { sqsRequests: 0, dynamoWriteUnits: 0, dynamoReadUnits: 1 }, 0.125],
    [
      "a first-try delivery with a record (0.3 SQS requests, 2 write units)",
      { sqsRequests: 0.3, dynamoWriteUnits: 2, dynamoReadUnits: 0 },
      1.37,
    ],
  ])("prices %s", (_name, usage, dollars) => {
    expect(usdPerMillionEvents(usage)).toBeCloseTo(dollars, 6);
  });
});

describe("billPerMillionEvents", () => {
  const none = { sqsRequests: 0, dynamoWriteUnits: 0, dynamoReadUnits: 0 };
  it.each([
    [
      "1 KB kept a 30-day month",
      { ...none, storedBytes: 1000, retentionSeconds: 30 * 86_400 },
      "dynamoStorage",
      0.25,
    ],
    [
      "1 KB kept a month with point-in-time recovery",
      { ...none, storedBytes: 1000, retentionSeconds: 30 * 86_400, pointInTimeRecovery: true },
      "dynamoStorage",
      0.45,
    ],
    [
      "1 KB kept an hour",
      { ...none, storedBytes: 1000, retentionSeconds: 3600 },
      "dynamoStorage",
      0.25 / 720,
    ],
    ["one invocation", { ...none, lambdaInvocations: 1 }, "lambdaRequests", 0.2],
    [
      "1 s at 1 GB on arm64",
      { ...none, lambdaBilledMs: 1000, memoryMb: 1024, architecture: "arm64" as const },
      "lambdaDuration",
      13.3334,
    ],
    [
      "1 s at 512 MB on x86_64",
      { ...none, lambdaBilledMs: 1000, memoryMb: 512, architecture: "x86_64" as const },
      "lambdaDuration",
      8.33335,
    ],
  ] as const)("prices %s", (_name, usage, line, dollars) => {
    expect(billPerMillionEvents(usage)[line]).toBeCloseTo(dollars, 5);
  });

  it("totals every line", () => {
    const bill = billPerMillionEvents({
      sqsRequests: 1,
      dynamoWriteUnits: 1,
      dynamoReadUnits: 1,
      lambdaInvocations: 1,
    });
    expect(bill.total).toBeCloseTo(0.4 + 0.625 + 0.125 + 0.2, 6);
  });
});
