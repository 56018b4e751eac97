import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AttemptResult, naturalClass, OutcomeClass } from "../../lib/core/outcome.js";
import { ErrorCategory } from "../../lib/core/policy.js";
import { CallEvidence, callEvidence } from "../../lib/core/target-health.js";

const FLOOR_MS = 1_000;

const response = (statusCode: number): AttemptResult => ({
  kind: "response",
  statusCode,
  durationMs: 5,
});
const failure = (
  category: ErrorCategory,
  requestSent: boolean,
  extra: Partial<Extract<AttemptResult, { kind: "error" }>> = {},
): AttemptResult => ({
  kind: "error",
  category,
  requestSent,
  message: category,
  durationMs: 5,
  ...extra,
});

describe("callEvidence", () => {
  it.each<[string, AttemptResult, number, CallEvidence]>([
    ["a 2xx shows the target up", response(204), 10_000, CallEvidence.HEALTHY],
    ["a 4xx refusal shows the target up", response(400), 10_000, CallEvidence.HEALTHY],
    ["a 503 is the target failing", response(503), 10_000, CallEvidence.FAILING],
    ["a 429 is the target failing", response(429), 10_000, CallEvidence.FAILING],
    [
      "a refused connection is the target failing",
      failure(ErrorCategory.CONNECTION_REFUSED, false),
      10_000,
      CallEvidence.FAILING,
    ],
    [
      "a timeout after the request left, at or over the floor, is the target failing",
      failure(ErrorCategory.TIMEOUT, true),
      FLOOR_MS,
      CallEvidence.FAILING,
    ],
    [
      "a timeout while connecting, over the floor, is the target failing",
      failure(ErrorCategory.TIMEOUT, false),
      10_000,
      CallEvidence.FAILING,
    ],
    [
      "a producer's timeout under the floor says nothing",
      failure(ErrorCategory.TIMEOUT, true),
      100,
      CallEvidence.SILENT,
    ],
    [
      "a call whose time was all spent before it started says nothing",
      failure(ErrorCategory.TIMEOUT, false, { beforeContact: true }),
      0,
      CallEvidence.SILENT,
    ],
    [
      "a long timeout spent resolving or signing says nothing",
      failure(ErrorCategory.TIMEOUT, false, { beforeContact: true }),
      10_000,
      CallEvidence.SILENT,
    ],
    [
      "a signing failure says nothing",
      failure(ErrorCategory.UNKNOWN, false, { beforeContact: true }),
      10_000,
      CallEvidence.SILENT,
    ],
    [
      "an address refused by the policy says nothing",
      failure(ErrorCategory.TARGET_REFUSED, false),
      10_000,
      CallEvidence.SILENT,
    ],
    [
      "an invalid target says nothing",
      failure(ErrorCategory.INVALID_TARGET, false),
      10_000,
      CallEvidence.SILENT,
    ],
    [
      "a function's own retry verdict is the target failing",
      failure(ErrorCategory.FUNCTION_ERROR, true, {
        functionAnswer: { kind: "verdict", verdict: { verdict: "retry" } },
      }),
      60_000,
      CallEvidence.FAILING,
    ],
    [
      "a function's own permanent verdict shows it up",
      failure(ErrorCategory.FUNCTION_ERROR, true, {
        functionAnswer: { kind: "verdict", verdict: { verdict: "permanent" } },
      }),
      60_000,
      CallEvidence.HEALTHY,
    ],
  ])("%s", (_name, result, timeoutMs, evidence) => {
    expect(callEvidence({ result, timeoutMs }, FLOOR_MS)).toBe(evidence);
  });

  it("never counts a timeout of a call given less than the floor, whatever else is true", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 0, max: 300_000 }),
        fc.integer({ min: 0, max: 300_000 }),
        (requestSent, beforeContact, timeoutMs, floorMs) => {
          fc.pre(timeoutMs < floorMs);
          const result = failure(ErrorCategory.TIMEOUT, requestSent, { beforeContact });
          expect(callEvidence({ result, timeoutMs }, floorMs)).toBe(CallEvidence.SILENT);
        },
      ),
    );
  });

  it("judges an answer by its status alone: no policy a producer sends changes it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), fc.nat(300_000), (status, timeoutMs) => {
        const natural = naturalClass(response(status));
        const failing = natural === OutcomeClass.RETRYABLE;
        expect(callEvidence({ result: response(status), timeoutMs }, FLOOR_MS)).toBe(
          failing ? CallEvidence.FAILING : CallEvidence.HEALTHY,
        );
      }),
    );
  });
});
