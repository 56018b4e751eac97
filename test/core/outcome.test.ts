import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AttemptResult,
  classify,
  MAX_OUTCOME_MESSAGE_LENGTH,
  OutcomeClass,
  storedExcerpt,
  truncate,
} from "../../lib/core/outcome.js";
import { ErrorCategory, type PolicyOverride } from "../../lib/core/policy.js";
import { REDACTED } from "../../lib/core/redact.js";
import { aCallError, aPolicy, aResponse } from "../support/factories.js";
import { aFiller, aSecret, leaksPartOf } from "./arbitraries.js";

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

  it.each<[string, AttemptResult]>([
    [
      "an echoed Basic credential in a body",
      aResponse(401, { bodyExcerpt: '{"authorization":"Basic dXNlcjpodW50ZXIy"}' }),
    ],
    [
      "a Bearer token in an error message",
      aCallError(E.UNKNOWN, { message: "proxy refused Bearer eyJhbGciOi.eyJzdWIi.c2lnbmF0" }),
    ],
  ])("blanks %s in the message", (_, result) => {
    const { message } = classify(result, defaults);
    expect(message).toContain(REDACTED);
    expect(message).not.toMatch(/dXNlcjpodW50ZXIy|eyJhbGciOi/);
  });

  it("blanks a credential before cutting the message, wherever the cut falls in it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 180, max: MAX_OUTCOME_MESSAGE_LENGTH }),
        aSecret(),
        aFiller(40),
        (pad, token, after) => {
          const bodyExcerpt = `${" ".repeat(pad)}Authorization: Bearer ${token}${after}`;
          const { message } = classify(aResponse(401, { bodyExcerpt }), defaults);
          expect(leaksPartOf(message, token)).toBe(false);
        },
      ),
    );
  });
});

describe("storedExcerpt", () => {
  it.each([
    ["a known secret", "denied for hunter2!", { secrets: ["hunter2"] }, `denied for ${REDACTED}!`],
    ["a credential", "got Bearer abcdefgh123", {}, `got Bearer ${REDACTED}`],
    [
      "the marker it inserts, by the limit",
      "key hunter2",
      { secrets: ["hunter2"], maxLength: 9 },
      "key [red…",
    ],
    [
      "a known secret cut by the end",
      "key hunte",
      { secrets: ["hunter2"], cutShort: true },
      `key ${REDACTED}`,
    ],
    [
      "nothing secret",
      "HTTP 503: busy",
      { secrets: ["hunter2"], maxLength: 256 },
      "HTTP 503: busy",
    ],
  ])("cuts %s", (_, text, options, expected) => {
    expect(storedExcerpt(text, options)).toBe(expected);
  });

  it("leaves no 8 characters of a secret, wherever the text and the limit cut it", () => {
    fc.assert(
      fc.property(
        aFiller(),
        aSecret(),
        aFiller(),
        fc.nat(),
        fc.nat(),
        (before, secret, after, end, limit) => {
          const whole = `${before}${secret}${after}`;
          const read = whole.slice(0, end % (whole.length + 1));
          const maxLength = limit % (read.length + REDACTED.length + 2);
          for (const text of [whole, read]) {
            const excerpt = storedExcerpt(text, {
              secrets: [secret],
              cutShort: text !== whole,
              maxLength,
            });
            expect(leaksPartOf(excerpt, secret)).toBe(false);
          }
        },
      ),
    );
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
