import { describe, expect, it } from "vitest";
import { MAX_SQS_VISIBILITY_TIMEOUT_SECONDS } from "../../lib/contract/aws-limits.js";
import { MAX_AHEAD_RECEIVES } from "../../lib/core/ahead-message.js";
import { type ClaimVerdict, claimVerdict } from "../../lib/core/claim-verdict.js";
import type { ClaimResult } from "../../lib/core/ports.js";
import { EventStatus } from "../../lib/core/status.js";
import { anEventRecord, FIXED_NOW_MS } from "../support/factories.js";

const NOW = FIXED_NOW_MS;
const waiting = anEventRecord({ status: EventStatus.RETRY_SCHEDULED, generation: 3 });
const delivered = anEventRecord({ status: EventStatus.DELIVERED, generation: 3 });
const cancelled = anEventRecord({ status: EventStatus.CANCELLED, generation: 3 });
const inFlight = anEventRecord({
  status: EventStatus.IN_FLIGHT,
  generation: 3,
  leaseExpiresAt: NOW + 9_500,
});
const firstReceive = { generation: 3, receiveCount: 1 };

describe("claimVerdict", () => {
  it.each<[string, ClaimResult, { generation: number; receiveCount: number }, ClaimVerdict]>([
    [
      "a claimed event is attempted",
      { kind: "claimed", record: inFlight, takeover: false },
      firstReceive,
      { kind: "attempt", record: inFlight, takeover: false },
    ],
    [
      "a takeover is attempted and says so",
      { kind: "claimed", record: inFlight, takeover: true },
      firstReceive,
      { kind: "attempt", record: inFlight, takeover: true },
    ],
    [
      "a finished event's message is a duplicate, dropped",
      { kind: "finished", record: delivered },
      firstReceive,
      { kind: "drop", cause: "duplicate", record: delivered },
    ],
    [
      "a cancelled event's message is dropped as the cancel's, not as a duplicate",
      { kind: "finished", record: cancelled },
      firstReceive,
      { kind: "drop", cause: "cancelled", record: cancelled },
    ],
    [
      "a stale copy is dropped",
      { kind: "stale", record: waiting },
      { generation: 1, receiveCount: 1 },
      { kind: "drop", cause: "stale" },
    ],
    [
      "a conflicting envelope is dropped for the first one",
      { kind: "conflict", record: waiting },
      firstReceive,
      { kind: "drop", cause: "conflict", record: waiting },
    ],
    [
      "a held lease hides the message until it ends, rounded up to whole seconds",
      { kind: "lease_held", leaseExpiresAt: NOW + 9_500 },
      firstReceive,
      {
        kind: "retry_later",
        cause: "lease_held",
        visibilitySeconds: 10,
        reason: "lease held by another worker",
      },
    ],
    [
      "a lease ending now still hides the message for a second",
      { kind: "lease_held", leaseExpiresAt: NOW },
      firstReceive,
      {
        kind: "retry_later",
        cause: "lease_held",
        visibilitySeconds: 1,
        reason: "lease held by another worker",
      },
    ],
    [
      "a lease longer than SQS allows hides the message for SQS's longest",
      { kind: "lease_held", leaseExpiresAt: NOW + 50_000_000 },
      firstReceive,
      {
        kind: "retry_later",
        cause: "lease_held",
        visibilitySeconds: MAX_SQS_VISIBILITY_TIMEOUT_SECONDS,
        reason: "lease held by another worker",
      },
    ],
    [
      "a copy ahead of its record waits for the record",
      { kind: "ahead", record: inFlight },
      { generation: 4, receiveCount: 2 },
      {
        kind: "retry_later",
        cause: "ahead",
        visibilitySeconds: 11,
        reason: "message ahead of its record",
      },
    ],
  ])("%s", (_name, claim, message, expected) => {
    expect(claimVerdict(claim, message, NOW)).toEqual(expected);
  });

  it("drops a copy ahead of a record that will never reach it, saying why", () => {
    const verdict = claimVerdict(
      { kind: "ahead", record: delivered },
      { generation: 5, receiveCount: MAX_AHEAD_RECEIVES },
      NOW,
    );
    expect(verdict).toMatchObject({ kind: "drop", cause: "orphan", record: delivered });
    expect(verdict.kind === "drop" && verdict.cause === "orphan" && verdict.reason).toMatch(
      /generation 5 was never recorded/,
    );
  });
});
