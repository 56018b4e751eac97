import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type DecisionInput,
  decideAfterAttempt,
  effectiveDeadlineMs,
} from "../../lib/core/decide.js";
import { type Outcome, OutcomeClass } from "../../lib/core/outcome.js";
import { aPolicy, constantRandom, FIXED_NOW_MS, TOP_OF_RANGE } from "../support/factories.js";
import { aRandomValue, aValidPolicy } from "./arbitraries.js";

const NOW = FIXED_NOW_MS;
const retryable: Outcome = { class: OutcomeClass.RETRYABLE, statusCode: 503, message: "HTTP 503" };

/** A retryable first attempt under a no-jitter policy (ceilings 5, 10, 20 … capped at 300). */
const anInput = (overrides: Partial<DecisionInput> = {}): DecisionInput => ({
  policy: aPolicy({ baseDelaySeconds: 5, maxDelaySeconds: 300, jitter: "none", maxAttempts: 5 }),
  outcome: retryable,
  attemptsMade: 1,
  attemptBudget: 5,
  nowMs: NOW,
  random: constantRandom(0),
  ...overrides,
});

describe("decideAfterAttempt", () => {
  it.each([
    [OutcomeClass.SUCCESS, { kind: "delivered" }],
    [OutcomeClass.PERMANENT, { kind: "rejected" }],
  ])("ends a %s attempt as %j, whatever the budget", (outcomeClass, decision) => {
    const outcome: Outcome = { class: outcomeClass, message: "x" };
    expect(decideAfterAttempt(anInput({ outcome, attemptsMade: 5, attemptBudget: 5 }))).toEqual(
      decision,
    );
  });

  it.each([OutcomeClass.RETRYABLE, OutcomeClass.UNCERTAIN])(
    "schedules retry n after attempt n of a %s outcome, at now + the delay",
    (outcomeClass) => {
      const decision = decideAfterAttempt(
        anInput({ outcome: { class: outcomeClass, message: "x" }, attemptsMade: 3 }),
      );
      expect(decision).toEqual({
        kind: "retry",
        retryNumber: 3,
        delaySeconds: 20,
        notBeforeMs: NOW + 20_000,
        retryAfterApplied: false,
      });
    },
  );

  it.each([
    [5, 5],
    [6, 5],
    [3, 3],
  ])("dead-letters as exhausted once %i attempts spend a budget of %i", (made, budget) => {
    expect(decideAfterAttempt(anInput({ attemptsMade: made, attemptBudget: budget }))).toEqual({
      kind: "dead_letter",
      reason: "exhausted",
    });
  });

  it("honours a redrive's larger budget over the policy's maxAttempts", () => {
    expect(decideAfterAttempt(anInput({ attemptsMade: 5, attemptBudget: 8 })).kind).toBe("retry");
  });

  describe("Retry-After as a floor", () => {
    const fullJitter = aPolicy({ baseDelaySeconds: 5, maxDelaySeconds: 300, jitter: "full" });

    it.each([
      // hint, maxRetryAfterSeconds, random, expected delay, applied
      ["120", 3600, 0, 120, true],
      ["  45 ", 3600, 0, 45, true],
      [new Date(NOW + 90_000).toUTCString(), 3600, 0, 90, true],
      ["100000", 600, 0, 600, true],
      ["2", 3600, TOP_OF_RANGE, 5, false],
      ["0", 3600, 0, 0, false],
      ["soon", 3600, 0, 0, false],
      [new Date(NOW - 90_000).toUTCString(), 3600, 0, 0, false],
    ])(
      "Retry-After %j (capped at %i) with random %d delays %i s",
      (hint, cap, value, delay, applied) => {
        const decision = decideAfterAttempt(
          anInput({
            policy: aPolicy({ ...fullJitter, maxRetryAfterSeconds: cap }),
            retryAfter: hint,
            random: constantRandom(value),
          }),
        );
        expect(decision).toMatchObject({
          kind: "retry",
          delaySeconds: delay,
          retryAfterApplied: applied,
        });
      },
    );
  });

  describe("deadline", () => {
    it("clamps the delay so the retry starts no later than the deadline", () => {
      const policy = aPolicy({ baseDelaySeconds: 100, maxDelaySeconds: 300, jitter: "none" });
      const decision = decideAfterAttempt(anInput({ policy, deadlineMs: NOW + 30_500 }));
      expect(decision).toMatchObject({
        kind: "retry",
        delaySeconds: 30,
        notBeforeMs: NOW + 30_000,
      });
    });

    it.each([
      ["the deadline has passed", NOW - 1, undefined],
      ["a Retry-After hint alone passes the deadline", NOW + 60_000, "120"],
    ])("dead-letters with reason deadline when %s", (_, deadlineMs, retryAfter) => {
      expect(decideAfterAttempt(anInput({ deadlineMs, retryAfter }))).toEqual({
        kind: "dead_letter",
        reason: "deadline",
      });
    });

    it("retries at once when the deadline is less than a second away", () => {
      const decision = decideAfterAttempt(anInput({ deadlineMs: NOW + 999 }));
      expect(decision).toMatchObject({ kind: "retry", delaySeconds: 0, notBeforeMs: NOW });
    });

    it("never schedules a retry past the deadline, nor a fractional or negative delay", () => {
      fc.assert(
        fc.property(
          aValidPolicy(),
          fc.integer({ min: 1, max: 99 }),
          aRandomValue(),
          fc.integer({ min: -10_000, max: 30 * 24 * 3600 * 1000 }),
          fc.option(fc.nat({ max: 10 * 24 * 3600 }).map(String), { nil: undefined }),
          fc.option(fc.nat({ max: 100_000 }), { nil: undefined }),
          (policy, attemptsMade, value, deadlineOffsetMs, retryAfter, previousDelaySeconds) => {
            const deadlineMs = NOW + deadlineOffsetMs;
            const decision = decideAfterAttempt({
              policy,
              outcome: retryable,
              attemptsMade,
              attemptBudget: 100,
              nowMs: NOW,
              deadlineMs,
              retryAfter,
              previousDelaySeconds,
              random: constantRandom(value),
            });
            if (decision.kind !== "retry") {
              expect(decision).toEqual({ kind: "dead_letter", reason: "deadline" });
              return;
            }
            expect(decision.notBeforeMs).toBeLessThanOrEqual(deadlineMs);
            expect(Number.isInteger(decision.delaySeconds)).toBe(true);
            expect(decision.delaySeconds).toBeGreaterThanOrEqual(0);
            expect(decision.notBeforeMs).toBe(NOW + decision.delaySeconds * 1000);
          },
        ),
      );
    });
  });
});

describe("effectiveDeadlineMs", () => {
  const firstSeen = NOW;
  const inAnHour = new Date(NOW + 3_600_000).toISOString();

  it.each([
    ["neither sets one", undefined, undefined, undefined],
    ["only the envelope sets one", inAnHour, undefined, NOW + 3_600_000],
    ["only the policy sets one", undefined, 60, NOW + 60_000],
    ["the policy's is earlier", inAnHour, 60, NOW + 60_000],
    ["the envelope's is earlier", inAnHour, 7200, NOW + 3_600_000],
  ])("is the earlier deadline when %s", (_, envelopeDeadline, deadlineSeconds, expected) => {
    const policy = aPolicy(deadlineSeconds === undefined ? {} : { deadlineSeconds });
    expect(effectiveDeadlineMs(envelopeDeadline, policy, firstSeen)).toBe(expected);
  });
});
