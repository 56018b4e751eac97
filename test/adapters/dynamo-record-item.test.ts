import { describe, expect, it } from "vitest";
import { itemToRecord } from "../../lib/adapters/dynamo-record-item.js";
import { describeCaller } from "../../lib/core/caller.js";
import { CallerSource } from "../../lib/core/record.js";
import { ANA_CALLER } from "../support/counting-caller-identity.js";

/** A stored record with one redrive and one audit entry, each naming `caller` (absent if so). */
const itemWith = (caller: unknown): Record<string, unknown> => {
  const named = caller === undefined ? {} : { caller };
  return {
    eventId: "evt-1",
    status: "pending",
    createdAt: "2026-12-01T00:00:00.000Z",
    updatedAt: "2026-12-01T00:00:00.000Z",
    redrives: [
      {
        at: "2026-12-01T00:00:00.000Z",
        by: "ana",
        ...named,
        reason: "fixed",
        previousStatus: "dead_lettered",
        previousAttempts: 3,
        attemptBudget: 3,
      },
    ],
    audit: [
      { at: "2026-12-01T00:01:00.000Z", by: "ana", ...named, action: "cancelled", reason: "x" },
    ],
  };
};

describe("itemToRecord's callers", () => {
  it.each([
    [
      "a structured caller, as written now",
      ANA_CALLER,
      ANA_CALLER,
      "arn:aws:iam::123456789012:user/ana (operator's credentials)",
    ],
    [
      "an unverified structured caller",
      { source: CallerSource.FUNCTION_ROLE, unverified: "no STS here" },
      { source: CallerSource.FUNCTION_ROLE, unverified: "no STS here" },
      "unverified: no STS here (operator function's role)",
    ],
    [
      "an older release's string caller (an ARN)",
      "arn:aws:iam::123456789012:user/ana",
      { recorded: "arn:aws:iam::123456789012:user/ana" },
      "arn:aws:iam::123456789012:user/ana",
    ],
    [
      "an older release's string caller (unverified)",
      "unverified",
      { recorded: "unverified" },
      "unverified",
    ],
    ["no caller, from before callers were recorded", undefined, undefined, ""],
  ])("reads %s on redrives and audit entries alike", (_label, stored, read, shown) => {
    const record = itemToRecord(itemWith(stored));
    const entries = [...record.redrives, ...(record.audit ?? [])];
    expect(entries.map((entry) => entry.caller)).toEqual([read, read]);
    expect(entries.map((entry) => describeCaller(entry.caller))).toEqual([shown, shown]);
  });

  it("keeps the rest of an older entry as stored", () => {
    const record = itemToRecord(itemWith("arn:aws:iam::123456789012:user/ana"));
    expect(record.audit).toEqual([
      {
        at: "2026-12-01T00:01:00.000Z",
        by: "ana",
        caller: { recorded: "arn:aws:iam::123456789012:user/ana" },
        action: "cancelled",
        reason: "x",
      },
    ]);
  });
});
