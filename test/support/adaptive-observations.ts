import {
  type AdaptiveLimitSettings,
  adaptiveSettingsFor,
  type LimitObservation,
} from "../../lib/core/adaptive-limit.js";
import type { AttemptResult } from "../../lib/core/outcome.js";

/** One target key the adaptive limiter tests share. */
export const ADAPTIVE_TARGET = "http:https://partner.example:443";

/** Ceilings high enough that only what the target says moves the limit. */
export const ADAPTIVE_TEST_SETTINGS: AdaptiveLimitSettings = adaptiveSettingsFor(
  { maxCallsPerSecond: 1_000, maxConcurrentCalls: 100 },
  1_000,
);

/** A call the target answered with `statusCode` (and `Retry-After`, if given) in 50 ms. */
export const answered = (statusCode: number, retryAfter?: string): LimitObservation => {
  const result: AttemptResult = { kind: "response", statusCode, retryAfter, durationMs: 50 };
  return { kind: "call", call: { result, timeoutMs: 10_000 } };
};
