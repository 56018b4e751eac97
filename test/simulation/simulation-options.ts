import { type BreakerSettings, DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import type { TargetLimits } from "../../lib/core/target-settings.js";
import { type DeployedTimings, deployedTimings } from "../support/deployed-timings.js";

/**
 * The timings every run uses unless told otherwise: the deployed ones, unscaled (virtual time
 * costs nothing), so a fault costs what it would cost in a deployment.
 */
export const SIMULATION_TIMINGS: DeployedTimings = deployedTimings();

/** The knobs of one run. Timing defaults are {@link SIMULATION_TIMINGS}. */
export interface SimulationOptions {
  readonly seed: number;
  readonly events?: number;
  readonly workers?: number;
  /** Base probability of a fault at each step. */
  readonly faultRate?: number;
  /** Each worker's clock is off true time by up to this much, either way. */
  readonly skewBoundMs?: number;
  /**
   * Added to the target timeout to make the lease. It must cover twice the skew bound (the
   * claimer's clock may be behind and the next claimer's ahead) plus the store's answer and the
   * start of the call; the deployed 5 s covers ±500 ms of skew and the simulated latencies
   * (≤ 40 ms a hop).
   */
  readonly leaseMarginMs?: number;
  readonly functionTimeoutMs?: number;
  readonly visibilityTimeoutSeconds?: number;
  readonly batchSize?: number;
  readonly messageConcurrency?: number;
  readonly maxReceiveCount?: number;
  readonly hopSeconds?: number;
  /** Let an operator cancel and replay some events during the run (default on). */
  readonly controls?: boolean;
  /** Run a redrive of the dead-lettered events once the first wave is over. */
  readonly redrive?: boolean;
  /** Send some events to Lambda targets, whose timeout is fixed at 60 s. */
  readonly lambdaTargets?: boolean;
  /** A deliberately broken store, for the simulation's self-test. */
  readonly brokenStore?: "ignore_leases";
  /** Turn on the targets' circuit breakers with these settings (every event shares one target). */
  readonly breakers?: BreakerSettings;
  /** Hold the (one) target to these limits, with or without breakers. */
  readonly limits?: TargetLimits;
  /** Learn each instance's adaptive limit for the target from its calls (its 429s, mostly). */
  readonly adaptive?: boolean;
}

/** Limits every event's shared target is held to under `--limits`: tight, so they bind often. */
export const TIGHT_LIMITS: TargetLimits = { maxConcurrentCalls: 2, maxCallsPerSecond: 4 };

/**
 * Breakers that trip on a few failures and reopen soon: every event of a run shares one target,
 * so these open, probe, close and reopen many times per run, which is what the checks need.
 */
export const SENSITIVE_BREAKERS: BreakerSettings = {
  ...DEFAULT_BREAKER_SETTINGS,
  minimumCalls: 3,
  failureRateThreshold: 0.3,
  openMs: 5_000,
  maxOpenMs: 40_000,
  probeWaitMs: 2_000,
};
