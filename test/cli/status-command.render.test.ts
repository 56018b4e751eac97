import { describe, expect, it } from "vitest";
import { describeStatus, renderRecord } from "../../lib/cli/status-command.js";
import type { EventRecord } from "../../lib/core/record.js";
import { anAttemptEntry, anEventRecord, FIXED_NOW_MS } from "../support/factories.js";

const DUE = "2030-01-01T06:30:00.000Z";
const DUE_MS = Date.parse(DUE);

describe("describeStatus (ricochet status, text)", () => {
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

  it("puts it on the record's status line", () => {
    const record = anEventRecord({ status: "scheduled", nextAttemptAt: DUE });
    expect(renderRecord(record, FIXED_NOW_MS)).toMatch(
      new RegExp(`│ status\\s+│ scheduled, due ${DUE.replaceAll(".", "\\.")} \\(in 6h 30m\\)`),
    );
  });
});

describe("renderRecord (ricochet status, text)", () => {
  it("says a deferred event is deferred, why, and when it is tried next (issue #36)", () => {
    const record = anEventRecord({
      status: "retry_scheduled",
      attempts: 1,
      nextAttemptAt: DUE,
      deferral: {
        cause: "breaker_open",
        targetKey: "group:partner",
        at: "2030-01-01T06:00:00.000Z",
      },
    });
    const text = renderRecord(record, FIXED_NOW_MS);
    expect(text).toMatch(
      /│ deferred\s+│ circuit breaker open for target group:partner \(deferred 2030-01-01T06:00:00\.000Z\)/,
    );
    expect(text).toMatch(new RegExp(`│ next attempt\\s+│ ${DUE.replaceAll(".", "\\.")}`));
  });

  it("numbers a run that made no call as such, not as an attempt", () => {
    const record = anEventRecord({
      status: "dead_lettered",
      history: [
        anAttemptEntry({
          attempt: 0,
          noCall: true,
          outcome: "permanent",
          message: "deadline passed before the attempt could start",
        }),
      ],
    });
    expect(renderRecord(record, FIXED_NOW_MS)).toMatch(/│ no call\s+│ 2030-01-01T00:00:00\.000Z/);
  });
});
