import { describe, expect, it } from "vitest";
import { usdPerMillionEvents } from "../../bench/support/list-prices.js";

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
