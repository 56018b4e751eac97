import { type Bill, billPerMillionEvents } from "./list-prices.js";

/** The scenario a floor is worked out for. */
export interface FloorScenario {
  /** Share of calls that fail and are retried. */
  readonly failureRate: number;
  readonly maxAttempts: number;
  /** Messages per SQS batch (send, receive, delete). */
  readonly batchSize: number;
}

/** The least work any orchestrator keeping Ricochet's contract needs per delivered event. */
export interface CostFloor {
  /** Expected target calls per event: 1 plus the retries. */
  readonly attemptsPerEvent: number;
  readonly sqsRequestsPerEvent: number;
  readonly dynamoWriteUnitsPerEvent: number;
  /** The request bill of that work (SQS + DynamoDB writes), per million events. */
  readonly bill: Bill;
}

/**
 * The floor, derived in BENCHMARKS.md ("The floor"): every event is sent once, received once per
 * attempt and deleted once, each in full batches, and a retry's delay costs no request of its own
 * (the best case: the receive already hid the message for as long as the retry waits); each
 * attempt needs one conditional write to claim the event before its call (no overlapping
 * attempts), and the event one more to record how it ended (a failure's outcome can ride on the
 * next attempt's claim). Reads, storage and Lambda are left out: a floor on requests and writes.
 */
export const costFloor = (scenario: FloorScenario): CostFloor => {
  const { failureRate: p, maxAttempts, batchSize } = scenario;
  // Expected calls when each fails with probability p, capped at the budget: Σ p^k for k < n.
  const attemptsPerEvent = p === 1 ? maxAttempts : (1 - p ** maxAttempts) / (1 - p);
  const sqsRequestsPerEvent = (1 + attemptsPerEvent + 1) / batchSize;
  const dynamoWriteUnitsPerEvent = attemptsPerEvent + 1;
  return {
    attemptsPerEvent,
    sqsRequestsPerEvent,
    dynamoWriteUnitsPerEvent,
    bill: billPerMillionEvents({
      sqsRequests: sqsRequestsPerEvent,
      dynamoWriteUnits: dynamoWriteUnitsPerEvent,
      dynamoReadUnits: 0,
    }),
  };
};
