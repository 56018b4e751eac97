import * as z from "zod";
import { formatProblems } from "./errors.js";
import { toProblems } from "./zod-problems.js";

/*
 * How a Lambda function answers like an HTTP receiver. An HTTP receiver says "later" with a 503 and
 * a Retry-After, and "never" with a 4xx; a function has only its result and its errors. So the
 * contract has two doors, both documented in the README:
 *
 * - a successful invocation returning `{ "ricochet": { "verdict": "retry" | "permanent", … } }`,
 *   for functions that catch their own failures;
 * - an unhandled error whose `errorType` is `RicochetRetryError` or `RicochetPermanentError`, for
 *   functions that throw. Lambda's runtimes put only the error's type, message and stack into the
 *   error payload (never its other properties), so the details travel in the message: a JSON
 *   object (`{"retryAfterSeconds":30,"reason":"…"}`), or plain text taken as the reason.
 *
 * Anything that claims to be a verdict and is not one (a typo, a string for a number) is a
 * malformed verdict: recorded with the problem and retried like any unhandled error, so a fixed
 * function deployed within the retry window still gets the event, and nothing crashes.
 */

/** The `errorType` names a function throws to give a verdict instead of failing. */
export const VerdictErrorType = {
  RETRY: "RicochetRetryError",
  PERMANENT: "RicochetPermanentError",
} as const;
export type VerdictErrorType = (typeof VerdictErrorType)[keyof typeof VerdictErrorType];

/** The key of a function result that carries a verdict. */
const VERDICT_RESULT_KEY = "ricochet";

/**
 * What a Lambda target may answer instead of success: `retry` (like HTTP 503, with
 * `retryAfterSeconds` playing `Retry-After`) or `permanent` (like a 4xx: no further attempt, the
 * event is rejected to the dead-letter queue).
 *
 * `retryAfterSeconds` is a floor under the next delay, rounded up to whole seconds and capped by
 * the policy's `maxRetryAfterSeconds` and the event's deadline, exactly as a `Retry-After` header.
 * `reason` is kept (shortened, credentials blanked) on the event's record.
 */
export type RicochetVerdict =
  | {
      readonly verdict: "retry";
      readonly retryAfterSeconds?: number | undefined;
      readonly reason?: string | undefined;
    }
  | { readonly verdict: "permanent"; readonly reason?: string | undefined };

/**
 * A function result that gives a verdict: return it from the handler (other top-level keys are
 * ignored). @example `return { ricochet: { verdict: "retry", retryAfterSeconds: 30 } };`
 */
export interface RicochetVerdictResult {
  readonly ricochet: RicochetVerdict;
}

const reason = z.string();
const retryAfterSeconds = z.number("must be a number of seconds").min(0, "must not be negative");

const RetryDetailsSchema = z.strictObject({
  retryAfterSeconds: retryAfterSeconds.optional(),
  reason: reason.optional(),
});
const PermanentDetailsSchema = z.strictObject({ reason: reason.optional() });

/** The `ricochet` object of a result, checked strictly so a misspelt field is reported, not ignored. */
export const RicochetVerdictSchema = z.discriminatedUnion("verdict", [
  RetryDetailsSchema.extend({ verdict: z.literal("retry") }),
  PermanentDetailsSchema.extend({ verdict: z.literal("permanent") }),
]);

/** What a function that ran said, when it said more than "here is my result". */
export type FunctionAnswer =
  | { readonly kind: "verdict"; readonly verdict: RicochetVerdict }
  | { readonly kind: "malformed_verdict"; readonly problem: string }
  /** An unhandled error that is no verdict; `errorType` as the error payload names it, if it does. */
  | { readonly kind: "unhandled_error"; readonly errorType?: string | undefined };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const malformed = (error: z.ZodError, prefix: string): FunctionAnswer => ({
  kind: "malformed_verdict",
  problem: formatProblems(
    toProblems(error).map((p) => ({ ...p, path: p.path === "" ? prefix : `${prefix}.${p.path}` })),
  ),
});

/**
 * Reads a successful invocation's result (its payload, parsed as JSON): a verdict, a malformed
 * one, or `undefined` when the result has no `ricochet` key and is the function's plain success.
 */
export const readResultVerdict = (result: unknown): FunctionAnswer | undefined => {
  if (!isRecord(result) || !Object.hasOwn(result, VERDICT_RESULT_KEY)) return undefined;
  const parsed = RicochetVerdictSchema.safeParse(result[VERDICT_RESULT_KEY]);
  return parsed.success
    ? { kind: "verdict", verdict: parsed.data }
    : malformed(parsed.error, VERDICT_RESULT_KEY);
};

const isVerdictType = (errorType: string | undefined): errorType is VerdictErrorType =>
  errorType === VerdictErrorType.RETRY || errorType === VerdictErrorType.PERMANENT;

/** The details an error message carries: a JSON object, else plain text that is the reason. */
const errorDetails = (errorType: VerdictErrorType, message: string): FunctionAnswer => {
  const verdict = errorType === VerdictErrorType.RETRY ? "retry" : "permanent";
  const text = message.trim();
  if (!text.startsWith("{")) {
    return { kind: "verdict", verdict: { verdict, reason: text === "" ? undefined : text } };
  }
  let details: unknown;
  try {
    details = JSON.parse(text);
  } catch {
    return {
      kind: "malformed_verdict",
      problem: `errorMessage: ${errorType} details are not valid JSON`,
    };
  }
  const parsed = RicochetVerdictSchema.safeParse(isRecord(details) ? { ...details, verdict } : {});
  return parsed.success
    ? { kind: "verdict", verdict: parsed.data }
    : isRecord(details)
      ? malformed(parsed.error, "errorMessage")
      : { kind: "malformed_verdict", problem: "errorMessage: details must be a JSON object" };
};

/**
 * Reads an unhandled function error's payload (parsed as JSON; Lambda's runtimes send
 * `{ errorType, errorMessage, … }`): a verdict when the type is one of {@link VerdictErrorType},
 * else the error and its type, for the policy's error-type lists.
 */
export const readFunctionError = (payload: unknown): FunctionAnswer => {
  const errorType =
    isRecord(payload) && typeof payload.errorType === "string" ? payload.errorType : undefined;
  if (!isVerdictType(errorType)) return { kind: "unhandled_error", errorType };
  const message = isRecord(payload) ? payload.errorMessage : undefined;
  return errorDetails(errorType, typeof message === "string" ? message : "");
};

/**
 * A verdict's `retryAfterSeconds` as whole seconds, the unit of a `Retry-After` header. An absurd
 * value stays a whole number, for the policy's `maxRetryAfterSeconds` to cut like any long hint.
 */
export const retryAfterOfVerdict = (verdict: RicochetVerdict): number | undefined =>
  verdict.verdict === "retry" && verdict.retryAfterSeconds !== undefined
    ? Math.min(Math.ceil(verdict.retryAfterSeconds), Number.MAX_SAFE_INTEGER)
    : undefined;

/** A verdict as the sentence an event's record keeps. */
export const describeVerdict = (verdict: RicochetVerdict): string => {
  const because =
    verdict.reason === undefined || verdict.reason === "" ? "" : `: ${verdict.reason}`;
  if (verdict.verdict === "permanent") return `function answered permanent failure${because}`;
  const after = retryAfterOfVerdict(verdict);
  return `function asked for a retry${after === undefined ? "" : ` after ${after} s`}${because}`;
};
