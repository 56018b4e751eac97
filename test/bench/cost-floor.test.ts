import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { costFloor } from "../../bench/support/cost-floor.js";

describe("costFloor", () => {
  it.each([
    // failure rate, attempts/event, SQS requests/event, write units/event, $/M
    [0, 1, 0.3, 2, 0.3 * 0.4 + 2 * 0.625],
    [0.3, 1.4285, 0.34285, 2.4285, 0.34285 * 0.4 + 2.4285 * 0.625],
  ])(
    "at %f failures: %f calls, %f SQS requests, %f write units, $%f/M",
    (p, calls, sqs, wru, usd) => {
      const floor = costFloor({ failureRate: p, maxAttempts: 10, batchSize: 10 });
      expect(floor.attemptsPerEvent).toBeCloseTo(calls, 3);
      expect(floor.sqsRequestsPerEvent).toBeCloseTo(sqs, 3);
      expect(floor.dynamoWriteUnitsPerEvent).toBeCloseTo(wru, 3);
      expect(floor.bill.total).toBeCloseTo(usd, 3);
    },
  );

  it("spends the whole budget when every call fails", () => {
    expect(costFloor({ failureRate: 1, maxAttempts: 10, batchSize: 10 }).attemptsPerEvent).toBe(10);
  });

  it("never falls as failures rise", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 0.99, noNaN: true }),
        fc.double({ min: 0, max: 0.99, noNaN: true }),
        (a, b) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          const at = (p: number) =>
            costFloor({ failureRate: p, maxAttempts: 10, batchSize: 10 }).bill.total;
          expect(at(high)).toBeGreaterThanOrEqual(at(low) - 1e-12);
        },
      ),
    );
  });
});
