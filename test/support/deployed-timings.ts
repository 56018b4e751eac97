import { DEFAULT_TIMEOUT_MS } from "../../lib/core/envelope.js";
import {
  RETRY_ORCHESTRATOR_DEFAULTS,
  VISIBILITY_TIMEOUT_FACTOR,
} from "../../lib/infra/retry-orchestrator-props.js";
import { DEFAULT_LEASE_MARGIN_MS } from "../../lib/runtime/create-ports.js";

/*
 * The timings a deployment runs with, for the simulation and the chaos run. Faults behave by the
 * RATIOS of these timings — how many leases fit in a visibility timeout, how many ahead-copy
 * bounces fit before SQS parks a message — so a run may shrink time, never a ratio: timings that
 * differed from the stack's once hid a copy parked in the dead-letter queue after a failed result
 * write. Every figure is derived from the constants the stack and the runtime use.
 */

/** The timings of one run: the deployed ones, divided by `timeScale`. */
export interface DeployedTimings {
  /** How many times shorter than deployed (1: as deployed). */
  readonly timeScale: number;
  readonly functionTimeoutMs: number;
  /** Both input queues' visibility timeout: VISIBILITY_TIMEOUT_FACTOR × the function timeout. */
  readonly visibilityTimeoutSeconds: number;
  /** Receives after which SQS parks a message itself; a count, so never scaled. */
  readonly maxReceiveCount: number;
  /** Lease kept beyond the call (DEFAULT_LEASE_MARGIN_MS). */
  readonly leaseMarginMs: number;
  /** An HTTP target's timeout when the envelope names none (DEFAULT_TIMEOUT_MS). */
  readonly targetTimeoutMs: number;
}

/** The ratios a run keeps, as printed in its JSON summary (checkable against the stack's). */
export interface TimingRatios extends DeployedTimings {
  /** The lease an event with the default target timeout gets: min(timeout, budget) + margin. */
  readonly leaseMs: number;
  readonly visibilityPerFunctionTimeout: number;
  readonly leasePerFunctionTimeout: number;
  readonly leaseMarginPerFunctionTimeout: number;
}

const scaled = (what: string, value: number, timeScale: number): number => {
  const result = value / timeScale;
  // A rounded figure would change a ratio: refuse a scale that does not divide evenly.
  if (!Number.isInteger(result))
    throw new RangeError(`time scale ${timeScale} makes ${what} ${result}, not a whole number`);
  return result;
};

/**
 * The deployed timings divided by `timeScale` (a divisor of every figure, e.g. 10: a 6 s function
 * timeout, a 36 s visibility timeout, a 1 s default target timeout and a 0.5 s lease margin).
 * @throws RangeError when a figure would not be whole (ms, or seconds for the visibility timeout).
 */
export const deployedTimings = (timeScale = 1): DeployedTimings => {
  const functionTimeoutSeconds = RETRY_ORCHESTRATOR_DEFAULTS.functionTimeout.toSeconds();
  return {
    timeScale,
    functionTimeoutMs: scaled("the function timeout", functionTimeoutSeconds * 1000, timeScale),
    visibilityTimeoutSeconds: scaled(
      "the visibility timeout",
      functionTimeoutSeconds * VISIBILITY_TIMEOUT_FACTOR,
      timeScale,
    ),
    maxReceiveCount: RETRY_ORCHESTRATOR_DEFAULTS.maxReceiveCount,
    leaseMarginMs: scaled("the lease margin", DEFAULT_LEASE_MARGIN_MS, timeScale),
    targetTimeoutMs: scaled("the target timeout", DEFAULT_TIMEOUT_MS, timeScale),
  };
};

const round4 = (value: number): number => Math.round(value * 10_000) / 10_000;

/** The ratios `timings` keep, for a run's summary. */
export const timingRatios = (timings: DeployedTimings): TimingRatios => {
  // A fresh invocation's call budget is the function timeout less the margin (lib/app/orchestrator/message-batch.ts, callBudgetOf).
  const callBudgetMs = timings.functionTimeoutMs - timings.leaseMarginMs;
  const leaseMs = Math.min(timings.targetTimeoutMs, callBudgetMs) + timings.leaseMarginMs;
  return {
    ...timings,
    leaseMs,
    visibilityPerFunctionTimeout: round4(
      (timings.visibilityTimeoutSeconds * 1000) / timings.functionTimeoutMs,
    ),
    leasePerFunctionTimeout: round4(leaseMs / timings.functionTimeoutMs),
    leaseMarginPerFunctionTimeout: round4(timings.leaseMarginMs / timings.functionTimeoutMs),
  };
};
