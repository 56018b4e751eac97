import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  askSize,
  bucketAt,
  grantKept,
  type RateBucket,
  tokenSpent,
} from "../../lib/core/rate-bucket.js";
import { RATE_WINDOW_MS, rateWindowOf } from "../../lib/core/target-limits.js";
import { FIXED_NOW_MS } from "../support/factories.js";

const WINDOW = rateWindowOf(FIXED_NOW_MS);

const bucket = (fields: Partial<RateBucket> = {}): RateBucket => ({
  windowStartMs: WINDOW,
  tokens: 0,
  used: 0,
  usedLastWindow: 0,
  full: false,
  ...fields,
});

describe("a rate bucket's window", () => {
  it.each([
    ["keeps the bucket within its window", WINDOW + 999, bucket({ tokens: 3, used: 2 })],
    [
      "keeps a bucket counted into a later window than this clock's",
      WINDOW - 1,
      bucket({ tokens: 3, used: 2 }),
    ],
    [
      "carries the used count into the next window, dropping the tokens",
      WINDOW + RATE_WINDOW_MS,
      bucket({ windowStartMs: WINDOW + RATE_WINDOW_MS, usedLastWindow: 2 }),
    ],
    [
      "forgets everything after a skipped window",
      WINDOW + 2 * RATE_WINDOW_MS,
      bucket({ windowStartMs: WINDOW + 2 * RATE_WINDOW_MS }),
    ],
  ])("%s", (_name, nowMs, expected) => {
    expect(bucketAt(bucket({ tokens: 3, used: 2, full: true }), nowMs)).toEqual({
      ...expected,
      full: expected.windowStartMs === WINDOW,
    });
  });

  it("starts an unknown target empty in the window the clock is in", () => {
    expect(bucketAt(undefined, WINDOW + 10)).toEqual(bucket());
  });
});

describe("spending and asking", () => {
  it("spends a token as a call, and has none to spend when empty", () => {
    expect(tokenSpent(bucket({ tokens: 2, used: 1 }))).toEqual(bucket({ tokens: 1, used: 2 }));
    expect(tokenSpent(bucket())).toBeUndefined();
  });

  it.each([
    ["one more than used recently", bucket({ used: 3, usedLastWindow: 1 }), 1_000, 4],
    ["by the last window when it used more", bucket({ used: 1, usedLastWindow: 7 }), 1_000, 8],
    ["one at a time once the window is full", bucket({ used: 30, full: true }), 1_000, 1],
    ["at most 5 % of the limit", bucket({ usedLastWindow: 500 }), 1_000, 50],
  ])("asks %s", (_name, current, limit, asked) => {
    expect(askSize(current, limit)).toBe(asked);
  });
});

describe("keeping a grant", () => {
  it("keeps all but the asking call's share as tokens, and counts that call as used", () => {
    const grant = { windowStartMs: WINDOW, granted: 5, full: false };
    expect(grantKept(bucket({ used: 2 }), grant)).toEqual(bucket({ tokens: 4, used: 3 }));
  });

  it("marks the window full when part of the ask was turned away, even with nothing granted", () => {
    const grant = { windowStartMs: WINDOW, granted: 0, full: true };
    expect(grantKept(bucket({ used: 2 }), grant)).toEqual(bucket({ used: 2, full: true }));
  });

  it("drops a grant for a window the bucket has already left", () => {
    const later = bucket({ windowStartMs: WINDOW + RATE_WINDOW_MS });
    expect(grantKept(later, { windowStartMs: WINDOW, granted: 5, full: false })).toBeUndefined();
  });

  it("never holds more calls in a window than were granted into it", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(20), { maxLength: 50 }), (grants) => {
        let current: RateBucket | undefined;
        for (const granted of grants) {
          current = grantKept(current, { windowStartMs: WINDOW, granted, full: false }) ?? current;
        }
        const total = grants.reduce((sum, granted) => sum + granted, 0);
        expect((current?.tokens ?? 0) + (current?.used ?? 0)).toBe(total);
      }),
    );
  });
});
