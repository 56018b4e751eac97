import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidRequestError } from "../../lib/core/errors.js";
import {
  notBeforeOfSchedule,
  type SubmitSchedule,
  scheduleEnvelope,
} from "../../lib/core/submit-schedule.js";

const NOW = Date.parse("2030-01-01T00:00:00Z");
const DUE = "2030-01-01T06:00:00.000Z";

describe("notBeforeOfSchedule", () => {
  it.each<[string, SubmitSchedule | undefined, string | undefined]>([
    ["no options: no schedule", undefined, undefined],
    ["neither field: no schedule", {}, undefined],
    ["a Date, as its UTC instant", { notBefore: new Date(DUE) }, DUE],
    [
      "an instant in another zone, normalised to UTC",
      { notBefore: "2030-01-01T07:00:00+01:00" },
      DUE,
    ],
    ["a delay, counted from now", { delaySeconds: 6 * 3600 }, DUE],
    ["a delay of 0: due at once", { delaySeconds: 0 }, "2030-01-01T00:00:00.000Z"],
    ["a fractional delay, to the millisecond", { delaySeconds: 1.5 }, "2030-01-01T00:00:01.500Z"],
  ])("reads %s", (_name, schedule, expected) => {
    expect(notBeforeOfSchedule(schedule, NOW)).toBe(expected);
  });

  it.each<[string, SubmitSchedule, string]>([
    [
      "both an instant and a delay",
      { notBefore: DUE, delaySeconds: 60 },
      "invalid schedule: delaySeconds: cannot be given with notBefore",
    ],
    [
      "a negative delay",
      { delaySeconds: -1 },
      "delaySeconds: must be a number of seconds of at least 0, got -1",
    ],
    ["a delay that is not a number", { delaySeconds: Number.NaN }, "got NaN"],
    [
      "a delay past the 14-day horizon (and past what a Date holds)",
      { delaySeconds: 1e20 },
      "delaySeconds: must be at most 1209600 (14 days), got 100000000000000000000",
    ],
    ["an invalid Date", { notBefore: new Date("tomorrow") }, "notBefore: must be a valid Date"],
    [
      "an instant without a zone",
      { notBefore: "2030-01-01T06:00:00" },
      'notBefore: must be an ISO 8601 date-time with a time zone, got "2030-01-01T06:00:00"',
    ],
  ])("refuses %s with the field and the reason", (_name, schedule, message) => {
    expect(() => notBeforeOfSchedule(schedule, NOW)).toThrow(InvalidRequestError);
    expect(() => notBeforeOfSchedule(schedule, NOW)).toThrow(message);
  });

  it("schedules any whole-second delay exactly that far after now", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 14 * 86_400 }), (seconds) => {
        const due = notBeforeOfSchedule({ delaySeconds: seconds }, NOW) ?? "";
        expect(Date.parse(due) - NOW).toBe(seconds * 1000);
      }),
    );
  });
});

describe("scheduleEnvelope", () => {
  it.each<[string, unknown, unknown]>([
    [
      "sets notBefore on an envelope without one",
      { eventId: "a" },
      { eventId: "a", notBefore: DUE },
    ],
    [
      "accepts an envelope naming the same instant in another zone, writing the schedule's",
      { eventId: "a", notBefore: "2030-01-01T07:00:00+01:00" },
      { eventId: "a", notBefore: DUE },
    ],
    ["leaves a non-object for validation to refuse", [1, 2], [1, 2]],
    ["leaves null for validation to refuse", null, null],
  ])("%s", (_name, value, expected) => {
    expect(scheduleEnvelope(value, DUE, "the test")).toEqual({ ok: true, value: expected });
  });

  it("refuses an envelope naming another instant, quoting both and who asked", () => {
    expect(
      scheduleEnvelope({ eventId: "a", notBefore: "2031-01-01T00:00:00Z" }, DUE, "--at/--in"),
    ).toEqual({
      ok: false,
      problems: [
        {
          path: "notBefore",
          message: `is "2031-01-01T00:00:00Z" in the envelope, but --at/--in asks for ${DUE}`,
        },
      ],
    });
  });
});
