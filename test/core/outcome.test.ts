import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AttemptResult,
  classify,
  MAX_OUTCOME_MESSAGE_LENGTH,
  OutcomeClass,
  truncate,
} from "../../lib/core/outcome.js";
import { ErrorCategory, type PolicyOverride } from "../../lib/core/policy.js";
import { aCallError, aPolicy, aResponse } from "../factories.js";

const C = OutcomeClass;
const E = ErrorCategory;
const defaults = aPolicy();

describe("classify", () => {
  it.each([
    [200, C.SUCCESS],
    [201, C.SUCCESS],
    [204, C.SUCCESS],
    [299, C.SUCCESS],
    [500, C.RETRYABLE],
    [502, C.RETRYABLE],
    [503, C.RETRYABLE],
    [504, C.RETRYABLE],
    [599, C.RETRYABLE],
    [408, C.RETRYABLE],
    [425, C.RETRYABLE],
    [429, C.RETRYABLE],
    [400, C.PERMANENT],
    [401, C.PERMANENT],
    [403, C.PERMANENT],
    [404, C.PERMANENT],
    [409, C.PERMANENT],
    [410, C.PERMANENT],
    [422, C.PERMANENT],
    [301, C.PERMANENT],
    [304, C.PERMANENT],
    [100, C.PERMANENT],
  ])("classifies HTTP %i as %s", (statusCode, expected) => {
    const outcome = classify(aResponse(statusCode), defaults);
    expect(outcome).toEqual({ class: expected, statusCode, message: `HTTP ${statusCode}` });
  });

  it.each<[ErrorCategory, boolean, OutcomeClass]>([
    [E.CONNECTION_REFUSED, false, C.RETRYABLE],
    [E.DNS_FAILURE, false, C.RETRYABLE],
    [E.THROTTLED, false, C.RETRYABLE],
    [E.FUNCTION_ERROR, true, C.RETRYABLE],
    [E.TIMEOUT, false, C.RETRYABLE],
    [E.TIMEOUT, true, C.UNCERTAIN],
    [E.CONNECTION_RESET, false, C.RETRYABLE],
    [E.CONNECTION_RESET, true, C.UNCERTAIN],
    [E.UNKNOWN, false, C.RETRYABLE],
    [E.UNKNOWN, true, C.UNCERTAIN],
    [E.INVALID_TARGET, false, C.PERMANENT],
    [E.TARGET_REFUSED, false, C.PERMANENT],
  ])("classifies a %s error (request sent: %s) as %s", (category, requestSent, expected) => {
    const outcome = classify(aCallError(category, { requestSent, message: "boom" }), defaults);
    expect(outcome).toEqual({ class: expected, errorCategory: category, message: "boom" });
  });

  it.each<[string, AttemptResult, PolicyOverride, OutcomeClass]>([
    ["retryOn turns a 404 retryable", aResponse(404), { retryOnStatus: [404] }, C.RETRYABLE],
    ["noRetryOn turns a 503 permanent", aResponse(503), { noRetryOnStatus: [503] }, C.PERMANENT],
    ["noRetryOn turns a 429 permanent", aResponse(429), { noRetryOnStatus: [429] }, C.PERMANENT],
    [
      "noRetryOn turns an uncertain timeout permanent",
      aCallError(E.TIMEOUT, { requestSent: true }),
      { noRetryOnStatus: [E.TIMEOUT] },
      C.PERMANENT,
    ],
    [
      "noRetryOn turns a DNS failure permanent",
      aCallError(E.DNS_FAILURE),
      { noRetryOnStatus: [E.DNS_FAILURE] },
      C.PERMANENT,
    ],
    [
      "retryOn turns a refused target retryable",
      aCallError(E.TARGET_REFUSED),
      { retryOnStatus: [E.TARGET_REFUSED] },
      C.RETRYABLE,
    ],
    [
      "retryOn leaves an uncertain outcome flagged uncertain",
      aCallError(E.TIMEOUT, { requestSent: true }),
      { retryOnStatus: [E.TIMEOUT] },
      C.UNCERTAIN,
    ],
    ["noRetryOn never overrides a success", aResponse(200), { noRetryOnStatus: [200] }, C.SUCCESS],
    ["retryOn never overrides a success", aResponse(204), { retryOnStatus: [204] }, C.SUCCESS],
    [
      "an unrelated override changes nothing",
      aResponse(404),
      { retryOnStatus: [409] },
      C.PERMANENT,
    ],
  ])("%s", (_, result, override, expected) => {
    expect(classify(result, aPolicy(override)).class).toBe(expected);
  });

  it("noRetryOn wins over retryOn across a base policy and an override", () => {
    // Listing one code in both lists of one policy is rejected, so the conflict can only arise
    // from a deployment list and an event override naming different codes; noRetry is checked first.
    const policy = aPolicy({ retryOnStatus: [404, 503], noRetryOnStatus: [] });
    const overridden = { ...policy, retryOnStatus: [404], noRetryOnStatus: [404] };
    expect(classify(aResponse(404), overridden).class).toBe(C.PERMANENT);
  });

  it("keeps a short excerpt of the body in the message, cut to the record's limit", () => {
    const outcome = classify(aResponse(503, { bodyExcerpt: "x".repeat(1000) }), defaults);
    expect(outcome.message.startsWith("HTTP 503: xxx")).toBe(true);
    expect(outcome.message.length).toBeLessThanOrEqual(MAX_OUTCOME_MESSAGE_LENGTH);
  });
});

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe("truncate", () => {
  it.each([
    ["short", 10, "short"],
    ["exactly10!", 10, "exactly10!"],
    ["eleven char", 10, "eleven ch…"],
    ["ab😀cd", 4, "ab…"],
    ["a😀cd", 3, "a…"],
  ])("cuts %j to %i code units as %j", (text, max, expected) => {
    expect(truncate(text, max)).toBe(expected);
  });

  it("never exceeds the limit nor splits a surrogate pair", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 80 }),
        fc.integer({ min: 1, max: 60 }),
        (text, max) => {
          const cut = truncate(text, max);
          expect(cut.length).toBeLessThanOrEqual(max);
          expect(cut).not.toMatch(LONE_SURROGATE);
          if (text.length <= max) expect(cut).toBe(text);
          else expect(cut.endsWith("…")).toBe(true);
        },
      ),
    );
  });
});
