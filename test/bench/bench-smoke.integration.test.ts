import { describe, expect, it } from "vitest";
import { ricochet, ricochetAA, ricochetTraced } from "../../bench/contenders/ricochet.js";
import { CONTENDERS, runBenchmark } from "../../bench/harness.js";
import { itWhereEmulated } from "../support/emulator-gaps.js";
import { localAws } from "../support/local-aws.js";

const figureNames = [
  "eventsPerSecond",
  "eventsPerSecondVsBaseline",
  "requestsPerEvent",
  "requestsByApi",
  "dynamoWritesPerEvent",
  "dynamoReadsPerEvent",
  "dynamoWriteUnitsPerEvent",
  "cpuMsPerRecord",
  "sqsRequestsPerEvent",
  "sqsRequestsByQueue",
  "sqsBilledRequestsPerEvent",
  "lambdaInvocationsPerEvent",
  "lambdaBilledMsPerEvent",
  "storedBytesPerEvent",
  "usdPerMillion",
  "usdAboveFloor",
  "verdictVsBaseline",
  "setup",
  "scheduleErrorP50Ms",
  "scheduleErrorP99Ms",
  "retryGapP50Ms",
  "retryGapP99Ms",
  "bundleBytes",
  "initMs",
  "firstBatchMs",
  "ceilingFraction",
] as const;

describe("benchmark harness", () => {
  itWhereEmulated(
    "consumedCapacityBySize",
    "reports every contender's figures, and Ricochet writes at most twice per attempt and never reads on the hot path",
    async () => {
      const result = await runBenchmark({
        local: localAws(),
        events: 20,
        rounds: CONTENDERS.length,
        warmupEvents: 0,
      });
      // The JSON the CLI prints is this object: it must survive a round trip unchanged.
      const json = JSON.parse(JSON.stringify(result)) as typeof result;
      expect(json).toMatchObject({ events: 20, rounds: CONTENDERS.length, concurrency: 4 });
      expect(Object.keys(json.contenders).sort()).toEqual(CONTENDERS.map((c) => c.name).sort());
      expect(Object.keys(json.contenders).sort()).toEqual([
        "bareSqs",
        "powertools",
        "powertoolsAA",
        "ricochet",
      ]);
      // Each contender went first exactly once.
      expect(new Set(json.order.map((names) => names[0])).size).toBe(CONTENDERS.length);
      expect(json.noise.pair).toEqual(["powertoolsAA", "powertools"]);
      expect(json.noise.flakyBand?.high).toBeGreaterThanOrEqual(1);
      for (const figures of Object.values(json.contenders)) {
        for (const name of figureNames) expect(figures).toHaveProperty(name);
        // The same budget for all, never exceeded, however many mappings a contender has.
        expect(figures.setup.concurrency).toBe(4);
        expect(figures.peakConcurrency).toBeGreaterThan(0);
        expect(figures.peakConcurrency).toBeLessThanOrEqual(4);
        expect(figures.lambdaInvocationsPerEvent).toBeGreaterThan(0);
        expect(figures.usdPerMillion.lambdaDuration).toBeGreaterThan(0);
        expect(figures.eventsPerSecond).toBeGreaterThan(0);
        // 30% of calls fail, so every contender needs more target calls than events.
        expect(figures.attemptsPerEvent).toBeGreaterThan(1);
        // Every contender waits its 1 s retry delay, give or take the time to pick a retry up.
        expect(figures.retryGapP50Ms).toBeGreaterThan(500);
      }
      expect(json.ceiling.attemptsPerSecond).toBeGreaterThan(0);
      expect(json.contenders.powertools?.eventsPerSecondVsBaseline).toEqual({
        median: 1,
        min: 1,
        max: 1,
      });
      expect(json.contenders.ricochet?.eventsPerSecondVsBaseline?.median).toBeGreaterThan(0);

      const ricochet = json.contenders.ricochet;
      if (ricochet === undefined) throw new Error("no figures for ricochet");
      // Two writes per attempt (claim, result): the first claim creates the record (PutItem),
      // later ones and every result update it. A copy that arrives ahead of its record costs one
      // failed conditional claim and is put back with ChangeMessageVisibility: the only excuse
      // for a write beyond two per attempt, besides the target's failure count a failed call may
      // write (at most one per failed call, fewer: lib/app/orchestrator/target-failure-counter.ts). Every
      // event ends delivered here, so the failed calls are the attempts beyond one. Per-event
      // figures are rounded to 3 places.
      const created = ricochet.requestsByApi["DynamoDB.PutItem"] ?? 0;
      const writes = created + (ricochet.requestsByApi["DynamoDB.UpdateItem"] ?? 0);
      const requeued = ricochet.requestsByApi["SQS.ChangeMessageVisibility"] ?? 0;
      const failedCalls = ricochet.attemptsPerEvent - 1;
      expect(created).toBe(1);
      expect(ricochet.dynamoWritesPerEvent).toBeCloseTo(writes, 2);
      expect(writes).toBeLessThanOrEqual(
        2 * ricochet.attemptsPerEvent + requeued + failedCalls + 0.002,
      );
      expect(ricochet.dynamoReadsPerEvent).toBe(0);
      expect(ricochet.requestsByApi["DynamoDB.GetItem"] ?? 0).toBe(0);
      expect(ricochet.requestsByApi["DynamoDB.Query"] ?? 0).toBe(0);
      expect(ricochet.bundleBytes).toBeGreaterThan(0);
      expect(ricochet.initMs).toBeGreaterThan(0);
      expect(ricochet.firstBatchMs).toBeGreaterThan(0);
      expect(ricochet.scheduleErrorP99Ms).not.toBeNull();
      // With a receiver that never fails, an event is one attempt: one claim and one result write.
      const healthy = json.healthy?.ricochet;
      expect(Object.keys(json.healthy ?? {}).sort()).toEqual(Object.keys(json.contenders).sort());
      expect(healthy?.attemptsPerEvent).toBe(1);
      expect(healthy?.requestsByApi["DynamoDB.PutItem"]).toBe(1);
      expect(healthy?.requestsByApi["DynamoDB.UpdateItem"]).toBe(1);
      expect(healthy?.dynamoReadsPerEvent).toBe(0);
      // Billing counts units: the status index is sparse (only events needing a decision), so a
      // delivered event's writes never touch it and cost one unit each.
      expect(healthy?.dynamoWriteUnitsPerEvent).toBe(2);
      expect(json.healthy?.bareSqs?.dynamoWriteUnitsPerEvent).toBe(0);
      // The bill is the counts at list prices: with no records, only SQS and Lambda are paid for.
      const bare = json.healthy?.bareSqs;
      expect(bare?.usdPerMillion.sqs).toBeCloseTo((bare?.sqsBilledRequestsPerEvent ?? 0) * 0.4, 2);
      expect(bare?.usdPerMillion.dynamoStorage).toBe(0);
      // Ricochet keeps its records 30 days with point-in-time recovery: storage is on its bill.
      expect(healthy?.usdPerMillion.dynamoStorage).toBeGreaterThan(0);
      expect(healthy?.storedBytesPerEvent).toBeGreaterThan(100);
      // The split by queue accounts for every SQS request, and shows where a retry's cost goes:
      // Ricochet's retries are sent to and read from its internal queue, the baselines' never.
      for (const figures of Object.values(json.contenders)) {
        const split = Object.values(figures.sqsRequestsByQueue).reduce((sum, n) => sum + n, 0);
        expect(split).toBeCloseTo(figures.sqsRequestsPerEvent, 2);
      }
      expect(ricochet.sqsRequestsByQueue["in.SendMessageBatch"]).toBe(1 / 10);
      expect(ricochet.sqsRequestsByQueue["internal.ReceiveMessage"]).toBeGreaterThan(0);
      expect(Object.keys(json.contenders.powertools?.sqsRequestsByQueue ?? {})).not.toContain(
        "internal.ReceiveMessage",
      );
      // The floor has no records at all.
      expect(json.contenders.bareSqs?.dynamoWritesPerEvent).toBe(0);
    },
    300_000,
  );

  it("compares tracing on with off: divided by untraced Ricochet, banded by its twin", async () => {
    const contenders = [ricochet, ricochetTraced, ricochetAA];
    const result = await runBenchmark({
      local: localAws(),
      events: 10,
      rounds: contenders.length,
      warmupEvents: 0,
      healthy: false,
      measureBundle: false,
      contenders,
      comparison: { baseline: ricochet, twin: ricochetAA },
    });

    expect(result.baseline).toBe("ricochet");
    expect(result.noise.pair).toEqual(["ricochetAA", "ricochet"]);
    expect(result.contenders.ricochet?.eventsPerSecondVsBaseline).toEqual({
      median: 1,
      min: 1,
      max: 1,
    });
    expect(result.contenders["ricochet-tracing"]?.verdictVsBaseline).not.toBeNull();
  }, 300_000);

  it("refuses a comparison whose baseline is not among the contenders", async () => {
    await expect(
      runBenchmark({ local: localAws(), events: 1, rounds: 1, contenders: [ricochet] }),
    ).rejects.toThrow("the comparison's powertools and powertoolsAA must be among the contenders");
  });
});
