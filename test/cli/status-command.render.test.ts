import { describe, expect, it } from "vitest";
import { renderRecord } from "../../lib/cli/status-command.js";
import { anAttemptEntry, anEventRecord, FIXED_NOW_MS } from "../support/factories.js";

const DUE = "2030-01-01T06:30:00.000Z";

describe("describeStatus on the status line (ricochet status, text)", () => {
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

  it("shows each attempt's trace id in a trace column only when an attempt has one", () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const traced = anEventRecord({ history: [anAttemptEntry({ traceId })] });
    const untraced = anEventRecord({ history: [anAttemptEntry({})] });
    expect(renderRecord(traced, FIXED_NOW_MS)).toMatch(new RegExp(`trace[\\s\\S]*${traceId}`));
    expect(renderRecord(untraced, FIXED_NOW_MS)).not.toMatch(/trace/);
  });
});
