import { describe, expect, it } from "vitest";
import { aheadVerdict, MAX_AHEAD_RECEIVES } from "../../lib/core/ahead-message.js";
import { EventStatus } from "../../lib/core/status.js";
import { anEventRecord, FIXED_NOW_MS } from "../support/factories.js";

const NOW = FIXED_NOW_MS;
const leased = anEventRecord({
  status: EventStatus.IN_FLIGHT,
  generation: 4,
  leaseExpiresAt: NOW + 12_300,
});
const terminal = anEventRecord({ status: EventStatus.DEAD_LETTERED, generation: 4 });

describe("aheadVerdict", () => {
  it.each([
    // The issuer's result write is usually milliseconds away: look again after a second.
    ["first look, issuer leased", leased, 5, 1, { kind: "wait", seconds: 1 }],
    ["first look, terminal record", terminal, 5, 1, { kind: "wait", seconds: 1 }],
    // Then wait out the issuer's lease, after which the copy may take the event over.
    ["second look, issuer leased", leased, 5, 2, { kind: "wait", seconds: 14 }],
    ["ninth look, issuer leased", leased, 5, 9, { kind: "wait", seconds: 14 }],
    [
      "lease just expired",
      { ...leased, leaseExpiresAt: NOW - 5 },
      5,
      2,
      { kind: "wait", seconds: 1 },
    ],
    ["second look, terminal record", terminal, 5, 2, { kind: "wait", seconds: 5 }],
    ["third look, terminal record", terminal, 5, 3, { kind: "wait", seconds: 30 }],
    ["two generations ahead of a leased record", leased, 6, 2, { kind: "wait", seconds: 5 }],
  ] as const)("%s", (_name, record, generation, receiveCount, expected) => {
    expect(aheadVerdict(record, generation, receiveCount, NOW)).toEqual(expected);
  });

  it("drops an orphan after a few looks, well before SQS's maxReceiveCount would park it", () => {
    const verdict = aheadVerdict(terminal, 5, MAX_AHEAD_RECEIVES, NOW);
    expect(verdict.kind).toBe("drop");
    expect(MAX_AHEAD_RECEIVES).toBeLessThan(10);
  });

  it("never drops a copy whose issuer still holds its lease", () => {
    for (let receives = 1; receives <= 50; receives += 1) {
      expect(aheadVerdict(leased, 5, receives, NOW).kind).toBe("wait");
    }
  });
});
