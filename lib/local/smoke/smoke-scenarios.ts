import type { PolicyOverride } from "../../core/policy.js";
import { EventStatus } from "../../core/status.js";

/*
 * What the LocalStack smoke checks: one event per way an event can end, each with the receiver's
 * behaviour that makes it end so and what its record must say then. Shared by the receiver (how
 * to answer) and the check (what to expect), so the two cannot drift apart.
 */

/** How the smoke receiver answers calls for one scenario. */
export const SmokeBehaviour = {
  /** 200 at once. */
  OK: "ok",
  /** 503 for the first {@link FLAKY_FAILURES} calls, then 200. */
  FLAKY: "flaky",
  /** 400 always: a permanent failure. */
  BROKEN: "broken",
  /** 400 until the receiver is told it recovered, then 200. */
  RECOVERING: "recovering",
} as const;
export type SmokeBehaviour = (typeof SmokeBehaviour)[keyof typeof SmokeBehaviour];

/** Calls a flaky target fails before it answers 200. */
export const FLAKY_FAILURES = 2;

/** One smoke scenario: the behaviour and the record's expected end. */
export interface SmokeScenario {
  readonly name: string;
  readonly behaviour: SmokeBehaviour;
  readonly expectedStatus: EventStatus;
  /** Attempts the record counts at the end, redriven attempts included. */
  readonly expectedAttempts: number;
  /** Redriven once it is rejected, after the receiver recovers. */
  readonly redrive: boolean;
}

/** The four scenarios of the smoke, in the order the summary lists them. */
export const SMOKE_SCENARIOS: readonly SmokeScenario[] = [
  {
    name: "delivered",
    behaviour: SmokeBehaviour.OK,
    expectedStatus: EventStatus.DELIVERED,
    expectedAttempts: 1,
    redrive: false,
  },
  {
    name: "retried_then_delivered",
    behaviour: SmokeBehaviour.FLAKY,
    expectedStatus: EventStatus.DELIVERED,
    expectedAttempts: FLAKY_FAILURES + 1,
    redrive: false,
  },
  {
    // A permanent 4xx ends `rejected`, with its copy on the dead-letter queue (reason rejected).
    name: "dead_lettered",
    behaviour: SmokeBehaviour.BROKEN,
    expectedStatus: EventStatus.REJECTED,
    expectedAttempts: 1,
    redrive: false,
  },
  {
    name: "redriven_then_delivered",
    behaviour: SmokeBehaviour.RECOVERING,
    expectedStatus: EventStatus.DELIVERED,
    // The rejected attempt, then the one the redrive grants (its default: one more).
    expectedAttempts: 2,
    redrive: true,
  },
];

/**
 * The policy every smoke event carries, so retries take seconds whatever the deployment's
 * default (5 s base, full jitter): within the default policy limits (base ≥ 1 s), and with a
 * budget above {@link FLAKY_FAILURES} + 1 so the flaky event is never exhausted.
 */
export const SMOKE_POLICY: PolicyOverride = {
  maxAttempts: FLAKY_FAILURES + 2,
  baseDelaySeconds: 1,
  multiplier: 2,
  maxDelaySeconds: 2,
  jitter: "none",
};
