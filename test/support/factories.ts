import { randomUUID } from "node:crypto";
import type { DeadLetterListing } from "../../lib/app/operator/dead-letter-scan.js";
import type { Envelope, HttpTarget, LambdaTarget } from "../../lib/core/envelope.js";
import type { AttemptResult } from "../../lib/core/outcome.js";
import {
  DEFAULT_POLICY,
  type ErrorCategory,
  type PolicyOverride,
  type RetryPolicy,
  resolvePolicy,
} from "../../lib/core/policy.js";
import type { ClaimRequest } from "../../lib/core/ports.js";
import type { RandomSource } from "../../lib/core/random.js";
import type { AttemptEntry, EventRecord } from "../../lib/core/record.js";
import type { TargetReport } from "../../lib/core/target-report.js";

/*
 * Shared test data builders. Each returns a valid value of its type, with overrides spread on
 * top, so a test states only the fields its behaviour depends on.
 */

/** A fixed instant (2030-01-01T00:00:00Z) for tests that need "now". */
export const FIXED_NOW_MS = Date.UTC(2030, 0, 1);

/** A fresh, valid event id; unique so tests sharing a table or queue never collide. */
export const anEventId = (prefix = "evt"): string => `${prefix}-${randomUUID()}`;

export const anHttpTarget = (overrides: Partial<HttpTarget> = {}): HttpTarget => ({
  type: "http",
  url: "https://receiver.example.com/hooks/orders",
  ...overrides,
});

export const aLambdaTarget = (overrides: Partial<LambdaTarget> = {}): LambdaTarget => ({
  type: "lambda",
  functionName: "order-receiver",
  ...overrides,
});

/** A valid envelope to an HTTP target, with a unique event id. */
export const anEnvelope = (overrides: Partial<Envelope> = {}): Envelope => ({
  eventId: anEventId(),
  target: anHttpTarget(),
  payload: { orderId: "o-1", amount: 42 },
  ...overrides,
});

/** The default policy with overrides, validated like any other policy (invalid ones throw). */
export const aPolicy = (overrides: PolicyOverride = {}): RetryPolicy =>
  resolvePolicy(DEFAULT_POLICY, overrides);

/**
 * A policy override retrying every second, without jitter, so a test's waits follow the clock:
 * `maxAttempts` is the budget (10 unless given).
 */
export const retryEverySecond = (maxAttempts = 10): PolicyOverride => ({
  baseDelaySeconds: 1,
  multiplier: 1,
  maxDelaySeconds: 1,
  jitter: "none",
  maxAttempts,
});

/** A target's HTTP response as an adapter reports it. */
export const aResponse = (
  statusCode: number,
  overrides: Partial<Omit<Extract<AttemptResult, { kind: "response" }>, "kind">> = {},
): AttemptResult => ({ kind: "response", statusCode, durationMs: 12, ...overrides });

/** A call that failed without an HTTP status, as an adapter reports it. */
export const aCallError = (
  category: ErrorCategory,
  overrides: Partial<Omit<Extract<AttemptResult, { kind: "error" }>, "kind" | "category">> = {},
): AttemptResult => ({
  kind: "error",
  category,
  requestSent: false,
  message: `${category} calling the target`,
  durationMs: 12,
  ...overrides,
});

export const anAttemptEntry = (overrides: Partial<AttemptEntry> = {}): AttemptEntry => ({
  attempt: 1,
  worker: "worker-1",
  claimedAt: new Date(FIXED_NOW_MS).toISOString(),
  sentAt: new Date(FIXED_NOW_MS + 5).toISOString(),
  finishedAt: new Date(FIXED_NOW_MS + 20).toISOString(),
  outcome: "retryable",
  statusCode: 503,
  message: "HTTP 503",
  ...overrides,
});

/** A freshly created, pending record; override `status`, `attempts` etc. for later states. */
export const anEventRecord = (overrides: Partial<EventRecord> = {}): EventRecord => ({
  eventId: anEventId(),
  status: "pending",
  generation: 0,
  attempts: 0,
  attemptBudget: DEFAULT_POLICY.maxAttempts,
  history: [],
  redrives: [],
  targetSummary: "http POST https://receiver.example.com/hooks/orders",
  createdAt: new Date(FIXED_NOW_MS).toISOString(),
  updatedAt: new Date(FIXED_NOW_MS).toISOString(),
  ...overrides,
});

/** A random source that always returns `value` (0 draws the bottom of a range, 0.999… the top). */
export const constantRandom =
  (value: number): RandomSource =>
  () =>
    value;

/** The largest value a {@link RandomSource} may return: draws the top of any range. */
export const TOP_OF_RANGE = 1 - Number.EPSILON;

/** A claim of `eventId` at generation 0 by `worker-a`, made at `nowMs`. */
export const aClaimRequest = (
  eventId: string,
  nowMs: number,
  overrides: Partial<ClaimRequest> = {},
): ClaimRequest => ({
  eventId,
  generation: 0,
  worker: "worker-a",
  nowMs,
  leaseMs: 10_000,
  attemptBudget: 9,
  targetSummary: "http POST https://receiver.example.com/",
  envelopeDigest: "digest-a",
  ...overrides,
});

/** A dead-letter copy as `dlq list` and the console list it: verified, read once. */
export const aDeadLetterListing = (
  overrides: Partial<DeadLetterListing> = {},
): DeadLetterListing => ({
  messageId: "m",
  deadLetteredAt: "2030-01-01T00:00:00.000Z",
  receiveCount: 1,
  verified: true,
  ...overrides,
});

/**
 * A target as `ricochet targets` reports it: closed, all 15 calls of the window failed, the last
 * 10 s before {@link FIXED_NOW_MS}.
 */
export const aTargetReport = (overrides: Partial<TargetReport> = {}): TargetReport => ({
  target: "http:https://partner.example:443",
  state: "closed",
  calls: 15,
  failures: 15,
  failureRate: 1,
  deferred: 0,
  lastError: "HTTP 503: upstream down",
  lastErrorAt: new Date(FIXED_NOW_MS - 10_000).toISOString(),
  updatedAt: new Date(FIXED_NOW_MS - 10_000).toISOString(),
  ...overrides,
});
