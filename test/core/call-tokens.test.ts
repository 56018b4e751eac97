import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CallTokens, REFILL_MS, tokensVerdict } from "../../lib/core/call-tokens.js";
import { FIXED_NOW_MS } from "../support/factories.js";

const T = FIXED_NOW_MS;
const bucket = (tokens: number, perSecond: number, atMs = T): CallTokens => ({
  tokens,
  atMs,
  perSecond,
});

describe("tokensVerdict", () => {
  it.each([
    ["a bucket not yet used starts full", undefined, T, 10, "call", 9],
    ["a call spends a token", bucket(3, 10), T, 10, "call", 2],
    ["an empty bucket defers", bucket(0.5, 10), T, 10, "defer", 0.5],
    ["it refills over REFILL_MS", bucket(0, 10), T + REFILL_MS / 2, 10, "call", 4],
    ["never above one second's rate", bucket(2, 10), T + 10 * REFILL_MS, 10, "call", 9],
    ["a raised rate adds its rise at once", bucket(0, 4), T, 6, "call", 1],
    ["a cut spills the tokens above it", bucket(9, 10), T, 5, "call", 4],
    ["a clock stepped back refills nothing", bucket(0.5, 10), T - 5_000, 10, "defer", 0.5],
  ] as const)("%s", (_name, before, nowMs, perSecond, verdict, tokensAfter) => {
    const after = tokensVerdict(before, nowMs, perSecond);
    expect(after.verdict.verdict).toBe(verdict);
    expect(after.tokens.tokens).toBeCloseTo(tokensAfter, 9);
    expect(after.tokens.perSecond).toBe(perSecond);
  });

  it("defers to when the next token is due", () => {
    // Half a token short at 10/s: a twentieth of REFILL_MS.
    expect(tokensVerdict(bucket(0.5, 10), T, 10).verdict).toEqual({
      verdict: "defer",
      untilMs: T + Math.ceil(REFILL_MS / 20),
    });
  });

  it("calls at the time it deferred to", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        fc.integer({ min: 1, max: 500 }),
        (tokens, perSecond) => {
          const deferred = tokensVerdict(bucket(tokens, perSecond), T, perSecond);
          if (deferred.verdict.verdict !== "defer") throw new Error("a short bucket called");
          const later = tokensVerdict(deferred.tokens, deferred.verdict.untilMs, perSecond);
          expect(later.verdict.verdict).toBe("call");
        },
      ),
    );
  });

  it("never calls more in a stretch than one second's rate and what REFILL_MS refills in it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 300 }),
        (perSecond, gapsMs) => {
          let state: CallTokens | undefined;
          let nowMs = T;
          const calledAt: number[] = [];
          for (const gapMs of gapsMs) {
            nowMs += gapMs;
            const after = tokensVerdict(state, nowMs, perSecond);
            state = after.tokens;
            if (after.verdict.verdict === "call") calledAt.push(nowMs);
          }
          for (const [i, fromMs] of calledAt.entries()) {
            const within = calledAt.slice(i).map((at) => at - fromMs);
            for (const [n, spanMs] of within.entries())
              expect(n + 1).toBeLessThanOrEqual(
                perSecond + (spanMs / REFILL_MS) * perSecond + 1e-9,
              );
          }
        },
      ),
    );
  });
});
