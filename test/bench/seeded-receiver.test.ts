import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { seededFailure, seededLatencyMs } from "../../bench/support/seeded-receiver.js";

describe("seeded receiver", () => {
  it("draws every answer time within [minMs, maxMs], the same for the same call", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000 }),
        fc.string(),
        fc.nat(20),
        fc.nat(500),
        fc.nat(500),
        (seed, eventId, callIndex, a, b) => {
          const latency = { minMs: Math.min(a, b), maxMs: Math.max(a, b) };
          const drawn = seededLatencyMs(seed, eventId, callIndex, latency);
          expect(Number.isInteger(drawn)).toBe(true);
          expect(drawn).toBeGreaterThanOrEqual(latency.minMs);
          expect(drawn).toBeLessThanOrEqual(latency.maxMs);
          expect(seededLatencyMs(seed, eventId, callIndex, latency)).toBe(drawn);
        },
      ),
    );
  });

  it("spreads answer times over the range and does not tie them to the failures", () => {
    const latency = { minMs: 0, maxMs: 99 };
    const calls = Array.from({ length: 2_000 }, (_, n) => `event-${n}`);
    const times = calls.map((id) => seededLatencyMs(7, id, 0, latency));
    expect(Math.min(...times)).toBeLessThan(5);
    expect(Math.max(...times)).toBeGreaterThan(94);
    const failing = calls.filter((id) => seededFailure(7, id, 0, 0.3));
    const meanOf = (ids: string[]) =>
      ids.reduce((sum, id) => sum + seededLatencyMs(7, id, 0, latency), 0) / ids.length;
    // Independent draws: the failing calls' mean answer time is the mean of all, within noise.
    expect(Math.abs(meanOf(failing) - meanOf(calls))).toBeLessThan(5);
  });
});
