import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY, redeliveryDeployment } from "../../bench/contender.js";
import { CONTENDERS } from "../../bench/harness.js";
import {
  DEFAULT_NOISY_SETTINGS,
  noisyContenders,
} from "../../bench/noisy-neighbour/noisy-neighbour.js";
import {
  assertDeployable,
  deploymentProblems,
  type FunctionDeployment,
  type MappingDeployment,
} from "../../bench/support/deployment.js";

const mapping = (overrides: Partial<MappingDeployment> = {}): MappingDeployment => ({
  queueRole: "in",
  queue: { visibilityTimeoutSeconds: 180, maxReceiveCount: 10 },
  batchSize: 10,
  maxBatchingWindowSeconds: 0,
  ...overrides,
});

const deployment = (overrides: Partial<FunctionDeployment> = {}): FunctionDeployment => ({
  timeoutSeconds: 30,
  memoryMb: 512,
  architecture: "arm64",
  mappings: [mapping()],
  ...overrides,
});

describe("deploymentProblems", () => {
  it("accepts what Lambda and SQS deploy", () => {
    expect(deploymentProblems(deployment())).toEqual([]);
  });

  it("refuses the bench's former Powertools queues: a 1 s visibility timeout under a 30 s function", () => {
    // What bench/contenders/powertools.ts made until the fair-benchmark change: the visibility
    // timeout was the retry delay, below the function timeout, which Lambda refuses.
    const former = deployment({
      timeoutSeconds: 30,
      mappings: [mapping({ queue: { visibilityTimeoutSeconds: 1, maxReceiveCount: 10 } })],
    });
    expect(deploymentProblems(former)).toEqual([
      "mapping 1 (in): the queue's visibility timeout (1 s) is below the function timeout (30 s), which Lambda refuses for an SQS event source",
    ]);
    expect(() => assertDeployable("powertools", former)).toThrow(/could not be deployed/);
  });

  it.each([
    [
      "a function timeout above 15 minutes",
      deployment({
        timeoutSeconds: 901,
        mappings: [mapping({ queue: { visibilityTimeoutSeconds: 1000, maxReceiveCount: 10 } })],
      }),
      /function timeout must be 1–900/,
    ],
    ["memory below 128 MB", deployment({ memoryMb: 64 }), /memory must be 128–10240/],
    [
      "a maxReceiveCount of 0",
      deployment({
        mappings: [mapping({ queue: { visibilityTimeoutSeconds: 180, maxReceiveCount: 0 } })],
      }),
      /maxReceiveCount must be 1–1000/,
    ],
    [
      "a batch of 11 without a window",
      deployment({ mappings: [mapping({ batchSize: 11 })] }),
      /needs a batching window/,
    ],
    [
      "a window above 300 s",
      deployment({ mappings: [mapping({ maxBatchingWindowSeconds: 301 })] }),
      /batching window must be 0–300/,
    ],
    [
      "a maximum concurrency of 1",
      deployment({ mappings: [mapping({ maximumConcurrency: 1 })] }),
      /maximum concurrency must be 2–1000/,
    ],
    [
      "a visibility timeout above 12 hours",
      deployment({
        mappings: [mapping({ queue: { visibilityTimeoutSeconds: 43_201, maxReceiveCount: 10 } })],
      }),
      /visibility timeout must be 0–43200/,
    ],
  ])("refuses %s", (_name, refused, problem) => {
    expect(deploymentProblems(refused).join("; ")).toMatch(problem);
  });

  it("names every broken rule at once", () => {
    expect(deploymentProblems(deployment({ memoryMb: 64, timeoutSeconds: 0 }))).toHaveLength(2);
  });

  it("a redelivery consumer's queue hides a message six times the function timeout", () => {
    const made = redeliveryDeployment(DEFAULT_RETRY, { timeoutSeconds: 60, memoryMb: 512 });
    expect(made.mappings[0].queue).toEqual({ visibilityTimeoutSeconds: 360, maxReceiveCount: 10 });
  });
});

describe("every benchmark contender", () => {
  const all = [
    ...CONTENDERS.map((c) => [c.name, c.deployment(DEFAULT_RETRY)] as const),
    ...noisyContenders(DEFAULT_NOISY_SETTINGS.breaker).map(
      (c) => [`${c.name} (noisy neighbour)`, c.deployment(DEFAULT_NOISY_SETTINGS.retry)] as const,
    ),
  ];
  it.each(all)("%s deploys as it is set up", (_name, made) => {
    expect(deploymentProblems(made)).toEqual([]);
  });
});
