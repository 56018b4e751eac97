import { describe, expect, it } from "vitest";
import type { EventRecord } from "../../lib/core/record.js";
import { describeStatus, recordFacts } from "../../lib/core/record-facts.js";
import { anEventRecord, FIXED_NOW_MS } from "../support/factories.js";

const DUE = "2030-01-01T06:30:00.000Z";
const DUE_MS = Date.parse(DUE);

describe("describeStatus", () => {
  it.each<[string, Partial<EventRecord>, number, string]>([
    [
      "a scheduled event, with its due time and how far off",
      { status: "scheduled", nextAttemptAt: DUE },
      FIXED_NOW_MS,
      `scheduled, due ${DUE} (in 6h 30m)`,
    ],
    [
      "a scheduled event due within the second",
      { status: "scheduled", nextAttemptAt: DUE },
      DUE_MS - 400,
      `scheduled, due ${DUE} (now)`,
    ],
    [
      "a scheduled event whose due time has passed (its last hop on the way)",
      { status: "scheduled", nextAttemptAt: DUE },
      DUE_MS + 90_000,
      `scheduled, due ${DUE} (1m 30s ago)`,
    ],
    [
      "a scheduled event days ahead",
      { status: "scheduled", nextAttemptAt: "2030-01-04T02:00:00.000Z" },
      FIXED_NOW_MS,
      "scheduled, due 2030-01-04T02:00:00.000Z (in 3d 2h)",
    ],
    ["a scheduled record without a due time", { status: "scheduled" }, FIXED_NOW_MS, "scheduled"],
    [
      "a retry wait, whose due time the next-attempt line shows",
      { status: "retry_scheduled", nextAttemptAt: DUE },
      FIXED_NOW_MS,
      "retry_scheduled",
    ],
    ["a delivered event", { status: "delivered" }, FIXED_NOW_MS, "delivered"],
  ])("shows %s", (_name, fields, nowMs, expected) => {
    expect(describeStatus(anEventRecord(fields), nowMs)).toBe(expected);
  });
});

describe("recordFacts", () => {
  it("leaves out the facts that do not apply to the record", () => {
    const names = recordFacts(anEventRecord({ status: "delivered" }), FIXED_NOW_MS).map(
      (f) => f.name,
    );
    expect(names).not.toContain("deferred");
    expect(names).not.toContain("conflicting resubmissions");
    expect(names).not.toContain("dead-letter pending");
    expect(names).toContain("status");
  });

  it("blanks a credential a record's last outcome still quotes", () => {
    const facts = recordFacts(
      anEventRecord({
        lastOutcome: { class: "permanent", message: "refused Bearer abcdefghijklmnop" },
      }),
      FIXED_NOW_MS,
    );
    const outcome = facts.find((f) => f.name === "last outcome");
    expect(outcome?.value).not.toContain("abcdefghijklmnop");
  });
});
