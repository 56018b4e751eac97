import { describe, expect, it } from "vitest";
import { fleetShareOf } from "../../lib/core/fleet-share.js";

const NOW = 1_000_000;
const MAX_AGE_MS = 15_000;

describe("fleetShareOf", () => {
  it.each([
    { name: "alone: no other instance heard of", own: 10, others: undefined, share: 1 },
    {
      name: "a quarter beside others sending three times as much",
      own: 10,
      others: { perSecond: 30, instances: 3, seenAtMs: NOW - 1_000 },
      share: 0.25,
    },
    {
      name: "alone again once what was heard is older than the bound",
      own: 10,
      others: { perSecond: 30, instances: 3, seenAtMs: NOW - MAX_AGE_MS - 1 },
      share: 1,
    },
    {
      name: "heard exactly at the bound: still counted",
      own: 10,
      others: { perSecond: 10, instances: 1, seenAtMs: NOW - MAX_AGE_MS },
      share: 0.5,
    },
    {
      name: "a clock far behind what was heard: alone",
      own: 10,
      others: { perSecond: 30, instances: 3, seenAtMs: NOW + MAX_AGE_MS + 1 },
      share: 1,
    },
    {
      name: "others whose breakers hold them at zero: the whole of it",
      own: 10,
      others: { perSecond: 0, instances: 2, seenAtMs: NOW },
      share: 1,
    },
    {
      name: "others read back with a negative rate (a damaged item): the whole step, no more",
      own: 10,
      others: { perSecond: -5, instances: 1, seenAtMs: NOW },
      share: 1,
    },
    {
      name: "this instance at zero: 1, never a share of nothing",
      own: 0,
      others: { perSecond: 20, instances: 2, seenAtMs: NOW },
      share: 1,
    },
  ])("$name", ({ own, others, share }) => {
    expect(fleetShareOf(own, others, NOW, MAX_AGE_MS)).toBe(share);
  });
});
