import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFERRAL_FLUSH_MS,
  deferralCounted,
  deferralsWritten,
  type PendingDeferrals,
  pendingCount,
} from "../../lib/core/pending-deferrals.js";
import { FIXED_NOW_MS } from "../support/factories.js";

const NOW = FIXED_NOW_MS;

describe("counting deferrals", () => {
  it("writes an instance's first deferral to a target at once, so an outage shows promptly", () => {
    expect(deferralCounted(undefined, NOW)).toEqual({
      pending: { count: 1, writtenAtMs: NOW },
      write: true,
    });
  });

  it.each([
    ["holds a deferral soon after the last write", DEFERRAL_FLUSH_MS - 1, false, NOW],
    ["writes once the flush interval has passed", DEFERRAL_FLUSH_MS, true, NOW + DEFERRAL_FLUSH_MS],
  ])("%s", (_name, afterMs, write, writtenAtMs) => {
    const pending: PendingDeferrals = { count: 3, writtenAtMs: NOW };
    expect(deferralCounted(pending, NOW + afterMs)).toEqual({
      pending: { count: 4, writtenAtMs },
      write,
    });
  });

  it("writes no more than once per flush interval however many deferrals come", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(2 * DEFERRAL_FLUSH_MS), { maxLength: 100 }), (gaps) => {
        let pending: PendingDeferrals | undefined;
        let nowMs = NOW;
        const writes: number[] = [];
        for (const gap of gaps) {
          nowMs += gap;
          const counted = deferralCounted(pending, nowMs);
          pending = counted.pending;
          if (!counted.write) continue;
          writes.push(nowMs);
          pending = deferralsWritten(pending, pending.count, nowMs);
        }
        const spacing = writes.slice(1).map((at, i) => at - (writes[i] ?? 0));
        expect(spacing.every((ms) => ms >= DEFERRAL_FLUSH_MS)).toBe(true);
        expect(pendingCount(pending)).toBeLessThanOrEqual(gaps.length);
      }),
    );
  });
});

describe("a write that took the deferrals along", () => {
  it("keeps the deferrals made while it was in flight for the next write", () => {
    const pending: PendingDeferrals = { count: 7, writtenAtMs: NOW };
    expect(deferralsWritten(pending, 5, NOW + 20)).toEqual({ count: 2, writtenAtMs: NOW + 20 });
  });

  it("restarts the flush interval even when it sent none", () => {
    const pending: PendingDeferrals = { count: 2, writtenAtMs: NOW };
    expect(deferralsWritten(pending, 0, NOW + 20)).toEqual({ count: 2, writtenAtMs: NOW + 20 });
  });

  it("keeps no entry for a target never deferred to", () => {
    expect(deferralsWritten(undefined, 0, NOW)).toBeUndefined();
    expect(pendingCount(undefined)).toBe(0);
  });
});
