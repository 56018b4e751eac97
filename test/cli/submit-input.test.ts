import { describe, expect, it } from "vitest";
import { parseSubmitInput, scheduleDocuments } from "../../lib/cli/submit-input.js";
import { parseIsoInstant } from "../../lib/cli/time-flags.js";

const DUE = "2026-12-24T18:00:00.000Z";

describe("scheduleDocuments (submit --at/--in)", () => {
  it.each([
    [
      "sets notBefore on an envelope without one",
      { eventId: "a" },
      { eventId: "a", notBefore: DUE },
    ],
    [
      "keeps an envelope that already names the same instant",
      { eventId: "a", notBefore: DUE },
      { eventId: "a", notBefore: DUE },
    ],
    ["leaves a non-object for validation to refuse", [1, 2], [1, 2]],
  ])("%s", (_name, value, expected) => {
    const input = parseSubmitInput(JSON.stringify(value));
    expect(scheduleDocuments(input, DUE).documents).toEqual([{ index: 0, value: expected }]);
  });

  it("refuses, with the position and both instants, an envelope whose own notBefore differs", () => {
    const text = `{"eventId":"a"}\n{"eventId":"b","notBefore":"2027-01-01T00:00:00Z"}\nnot json\n`;
    const scheduled = scheduleDocuments(parseSubmitInput(text), DUE);

    expect(scheduled.documents.map((d) => d.index)).toEqual([0]);
    expect(scheduled.unreadable.map((u) => u.index).sort()).toEqual([1, 2]);
    const refused = scheduled.unreadable.find((u) => u.index === 1);
    expect(refused?.problems[0]?.path).toBe("notBefore");
    expect(refused?.problems[0]?.message).toContain("2027-01-01T00:00:00Z");
    expect(refused?.problems[0]?.message).toContain(DUE);
  });
});

describe("parseIsoInstant (submit --at)", () => {
  it("normalises an instant with a zone to UTC", () => {
    expect(parseIsoInstant("2026-12-24T19:00:00+01:00")).toBe(DUE);
  });

  it.each(["2026-12-24T18:00:00", "tomorrow", "2h"])("refuses %s", (value) => {
    expect(() => parseIsoInstant(value)).toThrow(/ISO 8601 date-time with a zone/);
  });
});
