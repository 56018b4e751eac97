import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decideAfterAttempt } from "../../lib/core/decide.js";
import {
  type FunctionAnswer,
  type RicochetVerdict,
  type RicochetVerdictResult,
  RicochetVerdictSchema,
  readFunctionError,
  readResultVerdict,
} from "../../lib/core/lambda-verdict.js";
import { classify, OutcomeClass, retryAfterOf } from "../../lib/core/outcome.js";
import { ErrorCategory, type PolicyOverride } from "../../lib/core/policy.js";
import { aCallError, aPolicy, constantRandom, FIXED_NOW_MS } from "../support/factories.js";

const C = OutcomeClass;

/** A Lambda target's report of a function that ran and answered `answer`. */
const answered = (answer: FunctionAnswer) =>
  aCallError(ErrorCategory.FUNCTION_ERROR, {
    requestSent: true,
    message: "function answered",
    functionAnswer: answer,
  });

const unhandled = (errorType?: string): FunctionAnswer => ({ kind: "unhandled_error", errorType });
const verdict = (v: RicochetVerdict): FunctionAnswer => ({ kind: "verdict", verdict: v });

describe("readResultVerdict", () => {
  it.each<[string, unknown, FunctionAnswer | undefined]>([
    ["a plain object result", { ok: true }, undefined],
    ["a result that is no object", "done", undefined],
    ["an array result", [{ ricochet: { verdict: "retry" } }], undefined],
    ["a null result", null, undefined],
    [
      "retry with a Retry-After and other keys beside it",
      { ricochet: { verdict: "retry", retryAfterSeconds: 2 }, note: "kept for logs" },
      verdict({ verdict: "retry", retryAfterSeconds: 2 }),
    ],
    ["retry alone", { ricochet: { verdict: "retry" } }, verdict({ verdict: "retry" })],
    [
      "permanent with a reason",
      { ricochet: { verdict: "permanent", reason: "customer deleted" } },
      verdict({ verdict: "permanent", reason: "customer deleted" }),
    ],
  ])("reads %s", (_, result, expected) => {
    expect(readResultVerdict(result)).toEqual(expected);
  });

  it.each<[string, unknown, string]>([
    ["an unknown verdict", { verdict: "later" }, "ricochet.verdict"],
    ["a misspelt field", { verdict: "retry", retryAfterSecond: 2 }, "ricochet.retryAfterSecond"],
    ["a Retry-After as text", { verdict: "retry", retryAfterSeconds: "2" }, "must be a number"],
    ["a negative Retry-After", { verdict: "retry", retryAfterSeconds: -1 }, "must not be negative"],
    ["a Retry-After on permanent", { verdict: "permanent", retryAfterSeconds: 5 }, "recognized"],
    ["a reason that is no text", { verdict: "permanent", reason: 42 }, "ricochet.reason"],
    ["a string instead of an object", "retry", "ricochet: "],
  ])("reports %s as a malformed verdict naming the problem", (_, ricochet, fragment) => {
    const answer = readResultVerdict({ ricochet });
    expect(answer).toEqual({
      kind: "malformed_verdict",
      problem: expect.stringContaining(fragment),
    });
  });

  it("never throws, whatever the function returns", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.anything(), (value, ricochet) => {
        readResultVerdict(value);
        readResultVerdict({ ricochet });
      }),
    );
  });
});

describe("readFunctionError", () => {
  const payload = (errorType: unknown, errorMessage: unknown) => ({
    errorType,
    errorMessage,
    trace: [],
  });

  it.each<[string, unknown, FunctionAnswer]>([
    ["an ordinary error", payload("TypeError", "x is undefined"), unhandled("TypeError")],
    [
      "a runtime timeout",
      payload("Sandbox.Timedout", "Task timed out"),
      unhandled("Sandbox.Timedout"),
    ],
    ["a payload without a type", { errorMessage: "boom" }, unhandled()],
    ["a payload that is not JSON", undefined, unhandled()],
    [
      "a retry with JSON details",
      payload("RicochetRetryError", '{"retryAfterSeconds":2,"reason":"rate limited"}'),
      verdict({ verdict: "retry", retryAfterSeconds: 2, reason: "rate limited" }),
    ],
    [
      "a retry whose message is plain text, as its reason",
      payload("RicochetRetryError", "upstream busy"),
      verdict({ verdict: "retry", reason: "upstream busy" }),
    ],
    ["a retry without a message", payload("RicochetRetryError", ""), verdict({ verdict: "retry" })],
    [
      "a permanent failure with a plain reason",
      payload("RicochetPermanentError", "customer deleted"),
      verdict({ verdict: "permanent", reason: "customer deleted" }),
    ],
    [
      "a permanent failure with JSON details",
      payload("RicochetPermanentError", ' {"reason":"customer deleted"} '),
      verdict({ verdict: "permanent", reason: "customer deleted" }),
    ],
  ])("reads %s", (_, errorPayload, expected) => {
    expect(readFunctionError(errorPayload)).toEqual(expected);
  });

  it.each<[string, unknown, string]>([
    ["details that are not JSON", payload("RicochetRetryError", "{retry: 2}"), "not valid JSON"],
    [
      "a misspelt detail",
      payload("RicochetRetryError", '{"retryAfter":2}'),
      "errorMessage.retryAfter",
    ],
    [
      "a Retry-After on a permanent failure",
      payload("RicochetPermanentError", '{"retryAfterSeconds":2}'),
      "errorMessage.retryAfterSeconds",
    ],
  ])("reports %s as a malformed verdict", (_, errorPayload, fragment) => {
    expect(readFunctionError(errorPayload)).toEqual({
      kind: "malformed_verdict",
      problem: expect.stringContaining(fragment),
    });
  });
});

describe("classifying a Lambda function's answer", () => {
  it.each<[string, FunctionAnswer, PolicyOverride, OutcomeClass]>([
    ["a retry verdict, like a 503", verdict({ verdict: "retry" }), {}, C.RETRYABLE],
    ["a permanent verdict, like a 4xx", verdict({ verdict: "permanent" }), {}, C.PERMANENT],
    [
      "a permanent verdict even with function_error in retryOnStatus",
      verdict({ verdict: "permanent" }),
      { retryOnStatus: [ErrorCategory.FUNCTION_ERROR] },
      C.PERMANENT,
    ],
    [
      "a retry verdict when the policy never retries function errors",
      verdict({ verdict: "retry", retryAfterSeconds: 2 }),
      { noRetryOnStatus: [ErrorCategory.FUNCTION_ERROR] },
      C.PERMANENT,
    ],
    [
      "a retry verdict under an allow-list that does not name it",
      verdict({ verdict: "retry" }),
      { retryOnlyErrorTypes: ["Sandbox.Timedout"] },
      C.RETRYABLE,
    ],
    [
      "a malformed verdict, retried like an unhandled error",
      { kind: "malformed_verdict", problem: "ricochet.verdict: invalid" },
      {},
      C.RETRYABLE,
    ],
    [
      "a malformed verdict under an allow-list",
      { kind: "malformed_verdict", problem: "ricochet.verdict: invalid" },
      { retryOnlyErrorTypes: ["Sandbox.Timedout"] },
      C.RETRYABLE,
    ],
    ["an unhandled error by default", unhandled("TypeError"), {}, C.RETRYABLE],
    [
      "an unhandled error of a never-retried type",
      unhandled("ValidationError"),
      { noRetryErrorTypes: ["ValidationError"] },
      C.PERMANENT,
    ],
    [
      "an unhandled error of another type than the never-retried ones",
      unhandled("TypeError"),
      { noRetryErrorTypes: ["ValidationError"] },
      C.RETRYABLE,
    ],
    [
      "an unhandled error on the allow-list",
      unhandled("Sandbox.Timedout"),
      { retryOnlyErrorTypes: ["Sandbox.Timedout"] },
      C.RETRYABLE,
    ],
    [
      "an unhandled error off the allow-list",
      unhandled("TypeError"),
      { retryOnlyErrorTypes: ["Sandbox.Timedout"] },
      C.PERMANENT,
    ],
    [
      "an unhandled error without a type under an allow-list",
      unhandled(),
      { retryOnlyErrorTypes: ["Sandbox.Timedout"] },
      C.PERMANENT,
    ],
    [
      "an error type matched exactly, not by case",
      unhandled("validationerror"),
      { noRetryErrorTypes: ["ValidationError"] },
      C.RETRYABLE,
    ],
    [
      "a never-retried type the category list would retry",
      unhandled("ValidationError"),
      { noRetryErrorTypes: ["ValidationError"], retryOnStatus: [ErrorCategory.FUNCTION_ERROR] },
      C.PERMANENT,
    ],
  ])("classifies %s", (_, answer, override, expected) => {
    const outcome = classify(answered(answer), aPolicy(override));
    expect(outcome).toMatchObject({
      class: expected,
      errorCategory: ErrorCategory.FUNCTION_ERROR,
      message: "function answered",
    });
  });

  it.each<[string, RicochetVerdict, string | undefined]>([
    ["whole seconds", { verdict: "retry", retryAfterSeconds: 2 }, "2"],
    ["fractions, rounded up", { verdict: "retry", retryAfterSeconds: 1.2 }, "2"],
    ["none", { verdict: "retry" }, undefined],
    ["a permanent verdict", { verdict: "permanent" }, undefined],
    [
      "an absurd hint, still whole",
      { verdict: "retry", retryAfterSeconds: 1e300 },
      `${2 ** 53 - 1}`,
    ],
  ])("turns a verdict's Retry-After of %s into the header form", (_, v, expected) => {
    expect(retryAfterOf(answered(verdict(v)))).toBe(expected);
  });

  it.each([
    ["raises the drawn delay to the hint", 2, {}, 2],
    ["is cut by maxRetryAfterSeconds", 600, { maxRetryAfterSeconds: 30 }, 30],
  ])("a verdict's Retry-After %s, as an HTTP Retry-After is", (_, seconds, override, delay) => {
    const policy = aPolicy({ jitter: "none", baseDelaySeconds: 0, ...override });
    const result = answered(verdict({ verdict: "retry", retryAfterSeconds: seconds }));
    const decision = decideAfterAttempt({
      policy,
      outcome: classify(result, policy),
      retryAfter: retryAfterOf(result),
      attemptsMade: 1,
      attemptBudget: 3,
      nowMs: FIXED_NOW_MS,
      random: constantRandom(0),
    });
    expect(decision).toMatchObject({ kind: "retry", delaySeconds: delay });
  });

  it("a verdict's Retry-After past the deadline dead-letters the event, as a header's does", () => {
    const policy = aPolicy({ jitter: "none" });
    const result = answered(verdict({ verdict: "retry", retryAfterSeconds: 120 }));
    const decision = decideAfterAttempt({
      policy,
      outcome: classify(result, policy),
      retryAfter: retryAfterOf(result),
      attemptsMade: 1,
      attemptBudget: 3,
      deadlineMs: FIXED_NOW_MS + 60_000,
      nowMs: FIXED_NOW_MS,
      random: constantRandom(0),
    });
    expect(decision).toEqual({ kind: "dead_letter", reason: "deadline" });
  });
});

describe("the published verdict types", () => {
  it("match what the schema accepts", () => {
    const fromSchema = (value: unknown): RicochetVerdict => RicochetVerdictSchema.parse(value);
    const result: RicochetVerdictResult = {
      ricochet: fromSchema({ verdict: "retry", retryAfterSeconds: 1 }),
    };
    expect(readResultVerdict(result)).toEqual(verdict(result.ricochet));
  });
});
