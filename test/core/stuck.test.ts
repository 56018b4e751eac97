import { describe, expect, it } from "vitest";
import { EventStatus } from "../../lib/core/status.js";
import { isStuck, stuckAfterSecondsOf } from "../../lib/core/stuck.js";
import { anEventRecord } from "../support/factories.js";

const CUTOFF_MS = Date.parse("2026-12-03T12:00:00.000Z");
const before = "2026-12-03T11:59:59.000Z";
const after = "2026-12-03T12:00:01.000Z";

describe("a stuck event", () => {
  it.each([
    ["a retry due before the cutoff", EventStatus.RETRY_SCHEDULED, before, true],
    ["a scheduled event due before the cutoff", EventStatus.SCHEDULED, before, true],
    ["a deferred (pending) event due before the cutoff", EventStatus.PENDING, before, true],
    ["a retry due after the cutoff", EventStatus.RETRY_SCHEDULED, after, false],
    ["an event in flight", EventStatus.IN_FLIGHT, before, false],
    ["a delivered event", EventStatus.DELIVERED, before, false],
    ["a dead-lettered event", EventStatus.DEAD_LETTERED, before, false],
    ["a waiting event with no due time", EventStatus.PENDING, undefined, false],
  ] as const)("is %s: %s", (_case, status, nextAttemptAt, stuck) => {
    expect(isStuck(anEventRecord({ status, nextAttemptAt }), CUTOFF_MS)).toBe(stuck);
  });

  it("is judged past every receive a live message may still get", () => {
    expect(stuckAfterSecondsOf({ visibilityTimeoutSeconds: 360, maxReceiveCount: 10 })).toBe(3600);
  });
});
