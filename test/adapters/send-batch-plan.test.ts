import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  admitToBatch,
  BatchStep,
  type SendBatchLimits,
  SQS_SEND_BATCH_LIMITS,
} from "../../lib/adapters/send-batch-plan.js";

const LIMITS: SendBatchLimits = { maxEntries: 10, maxBytes: 1_000 };

/** Feeds sizes through admitToBatch as the batcher does; returns the requests, as indexes. */
const plan = (sizes: readonly number[], limits: SendBatchLimits): number[][] => {
  const requests: number[][] = [];
  let gathered: number[] = [];
  let bytes = 0;
  const flush = () => {
    if (gathered.length > 0) requests.push(gathered);
    gathered = [];
    bytes = 0;
  };
  sizes.forEach((size, index) => {
    const step = admitToBatch({ entries: gathered.length, bytes }, size, limits);
    if (step === BatchStep.ALONE) {
      requests.push([index]);
      return;
    }
    if (step === BatchStep.FLUSH_THEN_ADD) flush();
    gathered.push(index);
    bytes += size;
    if (step === BatchStep.ADD_THEN_FLUSH) flush();
  });
  flush();
  return requests;
};

describe("admitToBatch", () => {
  it.each([
    { gathered: { entries: 0, bytes: 0 }, size: 10, step: BatchStep.ADD },
    { gathered: { entries: 8, bytes: 80 }, size: 10, step: BatchStep.ADD },
    { gathered: { entries: 9, bytes: 90 }, size: 10, step: BatchStep.ADD_THEN_FLUSH },
    { gathered: { entries: 0, bytes: 0 }, size: 1_000, step: BatchStep.ADD },
    { gathered: { entries: 0, bytes: 0 }, size: 1_001, step: BatchStep.ALONE },
    { gathered: { entries: 3, bytes: 900 }, size: 1_001, step: BatchStep.ALONE },
    { gathered: { entries: 3, bytes: 900 }, size: 100, step: BatchStep.ADD },
    { gathered: { entries: 3, bytes: 900 }, size: 101, step: BatchStep.FLUSH_THEN_ADD },
    { gathered: { entries: 9, bytes: 990 }, size: 11, step: BatchStep.FLUSH_THEN_ADD },
  ])(
    "with $gathered.entries entries of $gathered.bytes bytes gathered, a message of $size bytes: $step",
    ({ gathered, size, step }) => {
      expect(admitToBatch(gathered, size, LIMITS)).toBe(step);
    },
  );

  it("uses SQS's limits by default: 10 entries, 256 KiB", () => {
    expect(SQS_SEND_BATCH_LIMITS).toEqual({ maxEntries: 10, maxBytes: 262_144 });
    expect(admitToBatch({ entries: 9, bytes: 9 }, 1)).toBe(BatchStep.ADD_THEN_FLUSH);
    expect(admitToBatch({ entries: 0, bytes: 0 }, 262_145)).toBe(BatchStep.ALONE);
  });

  it("groups any sequence into requests within the limits, each message once, in order within a request", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1_500 }), { maxLength: 60 }),
        fc.integer({ min: 2, max: 10 }),
        (sizes, maxEntries) => {
          const limits = { maxEntries, maxBytes: 1_000 };
          const requests = plan(sizes, limits);
          // An oversize message goes at once, ahead of the batch being gathered: messages are
          // different events, so only each request's own order is kept.
          expect(requests.flat().sort((a, b) => a - b)).toEqual(sizes.map((_, index) => index));
          for (const request of requests) {
            expect(request).toEqual([...request].sort((a, b) => a - b));
            expect(request.length).toBeLessThanOrEqual(maxEntries);
            const bytes = request.reduce((sum, index) => sum + (sizes[index] ?? 0), 0);
            // Only a message over the limit by itself may exceed it, and it goes alone.
            if (bytes > limits.maxBytes) expect(request).toHaveLength(1);
          }
        },
      ),
    );
  });

  it("never sends a batch that had room for the next message", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 60 }), (sizes) => {
        const requests = plan(sizes, LIMITS);
        requests.slice(0, -1).forEach((request, i) => {
          const next = requests[i + 1]?.[0];
          if (next === undefined) return;
          const bytes = request.reduce((sum, index) => sum + (sizes[index] ?? 0), 0);
          const full =
            request.length === LIMITS.maxEntries || bytes + (sizes[next] ?? 0) > LIMITS.maxBytes;
          expect(full).toBe(true);
        });
      }),
    );
  });
});
