import { describe, expect, it } from "vitest";
import { redriveRequestOf } from "../../lib/console/redrive-form.js";

describe("redriveRequestOf", () => {
  it("asks for a dry run unless the form is the confirmation", () => {
    expect(redriveRequestOf({ reason: "exhausted" }, "ana").dryRun).toBe(true);
    expect(redriveRequestOf({ reason: "exhausted", confirm: "yes" }, "ana").dryRun).toBe(false);
  });

  it("reads the form's fields into the request `ricochet redrive` would send", () => {
    expect(
      redriveRequestOf(
        {
          reason: "exhausted",
          eventIds: " a, b\nc ",
          target: " lambda:fn ",
          resetAttempts: "on",
          why: " fixed ",
          confirm: "yes",
        },
        "console",
      ),
    ).toEqual({
      eventIds: ["a", "b", "c"],
      reasons: ["exhausted"],
      target: "lambda:fn",
      resetAttempts: true,
      why: "fixed",
      by: "console",
      dryRun: false,
    });
  });

  it("leaves out the fields left blank (no filter: every dead-lettered event)", () => {
    expect(redriveRequestOf({ reason: "", eventIds: "  ", why: "" }, "console")).toEqual({
      eventIds: undefined,
      reasons: undefined,
      target: undefined,
      resetAttempts: undefined,
      why: undefined,
      by: "console",
      dryRun: true,
    });
  });
});
