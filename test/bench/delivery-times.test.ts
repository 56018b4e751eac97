import { describe, expect, it } from "vitest";
import { deliveryTimes, throughputOf } from "../../bench/support/delivery-times.js";

const call = (callIndex: number, startedAt: number, status: number) => ({
  callIndex,
  startedAt,
  status,
});

describe("deliveryTimes", () => {
  it("takes each event's first 2xx, earliest first, and skips events never delivered", () => {
    const calls = new Map([
      ["a", [call(0, 1_500, 503), call(1, 2_600, 200), call(2, 2_700, 200)]],
      ["b", [call(0, 1_100, 200)]],
      ["c", [call(0, 1_200, 503)]],
    ]);
    expect(deliveryTimes(calls, 1_000)).toEqual([100, 1_600]);
  });
});

describe("throughputOf", () => {
  it("counts events up to 95% delivered, so the last retry chain does not set the rate", () => {
    // 20 events: the 19th arrives at 1 s, the 20th (a long chain of retries) at 9 s.
    const times = [...Array.from({ length: 19 }, (_, i) => (i + 1) * (1000 / 19)), 9_000];
    expect(throughputOf(times, 20)).toBeCloseTo(19, 6);
  });

  it("is null when fewer than 95% arrived", () => {
    expect(throughputOf([10, 20], 20)).toBeNull();
  });
});
