import { describe, expect, it } from "vitest";
import { rateLimitedPartner } from "./simulated-partner.js";

describe("rateLimitedPartner", () => {
  const statuses = (partner: ReturnType<typeof rateLimitedPartner>, times: readonly number[]) =>
    times.map((atMs) => {
      const result = partner(atMs);
      return result.kind === "response" ? result.statusCode : 0;
    });

  it("admits a full bucket at once, then 429s until tokens come back at its rate", () => {
    const partner = rateLimitedPartner({ capacityPerSecond: 4 });
    expect(statuses(partner, [0, 0, 0, 0, 0, 100, 250, 500])).toEqual([
      200, 200, 200, 200, 429, 429, 200, 200,
    ]);
  });

  it("admits its capacity per second over a long run, whatever is asked", () => {
    const partner = rateLimitedPartner({ capacityPerSecond: 10, burst: 1 });
    const times = Array.from({ length: 10_000 }, (_, i) => i); // 1 000 calls/s for 10 s: the first, then one per 100 ms
    expect(statuses(partner, times).filter((s) => s === 200)).toHaveLength(100);
  });

  it("sends its Retry-After with each 429", () => {
    const partner = rateLimitedPartner({ capacityPerSecond: 1, retryAfter: "7" });
    partner(0);
    expect(partner(0)).toMatchObject({ statusCode: 429, retryAfter: "7" });
  });
});
