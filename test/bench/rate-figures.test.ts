import { describe, expect, it } from "vitest";
import {
  deliveryLatency,
  goodputShare,
  type PartnerCall,
  perDelivered,
  type RatePhase,
  reconvergeSeconds,
  refusals,
} from "../../bench/rate-limited/rate-figures.js";

/** `counts[s]` 200s spread over second s from `startMs`, each second's calls 1 ms apart. */
const okPerSecond = (startMs: number, counts: readonly number[]): PartnerCall[] =>
  counts.flatMap((n, s) =>
    Array.from({ length: n }, (_, i) => ({
      eventId: `e${s}-${i}`,
      at: startMs + s * 1000 + i,
      status: 200,
    })),
  );

const refused = (at: number): PartnerCall => ({ eventId: "r", at, status: 429 });

const phase = (startMs: number, endMs: number, rate: number): RatePhase => ({
  name: "p",
  startMs,
  endMs,
  rate,
});

describe("goodputShare", () => {
  it.each([
    { case: "every token used", calls: okPerSecond(0, [10, 10]), expected: 1 },
    { case: "half the quota left idle", calls: okPerSecond(0, [5, 5]), expected: 0.5 },
    {
      case: "429s do not count as goodput",
      calls: [...okPerSecond(0, [5, 5]), refused(10), refused(20)],
      expected: 0.5,
    },
    {
      case: "200s outside the phase do not count",
      calls: [...okPerSecond(0, [10, 10]), ...okPerSecond(2_000, [10])],
      expected: 1,
    },
    { case: "nothing answered", calls: [], expected: 0 },
  ])("is the share of the quota answered 200: $case", ({ calls, expected }) => {
    expect(goodputShare(calls, phase(0, 2_000, 10))).toBe(expected);
  });

  it("is zero for an empty phase rather than a division by zero", () => {
    expect(goodputShare(okPerSecond(0, [10]), phase(0, 0, 10))).toBe(0);
  });
});

describe("reconvergeSeconds", () => {
  it.each([
    { case: "at the new rate from the first second", counts: [10, 10, 10, 10], expected: 0 },
    { case: "after two seconds below 90 %", counts: [2, 5, 9, 10], expected: 2 },
    { case: "a dip after converging restarts the count", counts: [10, 10, 3, 9], expected: 3 },
    { case: "never settles", counts: [10, 10, 10, 8], expected: null },
    { case: "above the rate counts as converged", counts: [0, 12, 11, 10], expected: 1 },
  ])(
    "is the first second from which goodput stays at 90 % of the new rate: $case",
    ({ counts, expected }) => {
      expect(reconvergeSeconds(okPerSecond(5_000, counts), phase(5_000, 9_000, 10))).toBe(expected);
    },
  );

  it("leaves out a partial last second, which cannot hold a full second's calls", () => {
    expect(reconvergeSeconds(okPerSecond(0, [10, 10, 1]), phase(0, 2_500, 10))).toBe(0);
  });

  it("ignores 429s, however many", () => {
    const calls = [...okPerSecond(0, [4, 10]), ...Array.from({ length: 20 }, (_, i) => refused(i))];
    expect(reconvergeSeconds(calls, phase(0, 2_000, 10))).toBe(1);
  });
});

describe("429s and attempts per delivered event", () => {
  it.each([
    { count: 30, delivered: 10, expected: 3 },
    { count: 1, delivered: 3, expected: 0.333 },
    { count: 0, delivered: 5, expected: 0 },
    { count: 4, delivered: 0, expected: null },
  ])("$count over $delivered delivered is $expected", ({ count, delivered, expected }) => {
    expect(perDelivered(count, delivered)).toBe(expected);
  });

  it("counts only the partner's 429s as refusals", () => {
    expect(refusals([refused(0), refused(1), ...okPerSecond(0, [3])])).toBe(2);
  });
});

describe("deliveryLatency", () => {
  it("measures send to first 200 over delivered events only", () => {
    const submitted = new Map([
      ["a", 0],
      ["b", 0],
      ["c", 0],
    ]);
    const delivered = new Map([
      ["a", 100],
      ["b", 300],
    ]);
    expect(deliveryLatency(submitted, delivered)).toEqual({ p50Ms: 100, p99Ms: 300 });
  });

  it("has no percentiles when nothing was delivered", () => {
    expect(deliveryLatency(new Map([["a", 0]]), new Map())).toEqual({ p50Ms: null, p99Ms: null });
  });
});
