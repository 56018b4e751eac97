import { describe, expect, it } from "vitest";
import type { DeadLetterListing } from "../../lib/app/dead-letter-scan.js";
import { groupDeadLetters, UNREADABLE_REASON } from "../../lib/console/dead-letter-groups.js";
import { eventQueryOf } from "../../lib/console/event-listing.js";
import { redriveRequestOf } from "../../lib/console/redrive-form.js";
import { REDACTED } from "../../lib/core/redact.js";

const aListing = (overrides: Partial<DeadLetterListing>): DeadLetterListing => ({
  messageId: "m",
  deadLetteredAt: "2030-01-01T00:00:00.000Z",
  receiveCount: 1,
  ...overrides,
});

describe("groupDeadLetters", () => {
  it("groups by reason, largest first, each oldest first, unreadable copies kept apart", () => {
    const groups = groupDeadLetters([
      aListing({ messageId: "1", reason: "exhausted", deadLetteredAt: "2030-01-01T00:00:03.000Z" }),
      aListing({ messageId: "2", reason: "deadline" }),
      aListing({ messageId: "3", reason: "exhausted", deadLetteredAt: "2030-01-01T00:00:01.000Z" }),
      aListing({ messageId: "4", error: "not a Ricochet dead-letter message" }),
    ]);
    expect(groups.map((g) => [g.reason, g.count])).toEqual([
      ["exhausted", 2],
      ["deadline", 1],
      [UNREADABLE_REASON, 1],
    ]);
    expect(groups[0]?.messages.map((m) => m.messageId)).toEqual(["3", "1"]);
    expect(groups[0]).toMatchObject({
      oldest: "2030-01-01T00:00:01.000Z",
      newest: "2030-01-01T00:00:03.000Z",
    });
  });

  it("blanks credentials quoted in a copy's last outcome", () => {
    const [group] = groupDeadLetters([
      aListing({ reason: "exhausted", lastOutcome: "HTTP 401 for Bearer abcdefgh12345678" }),
    ]);
    expect(group?.messages[0]?.lastOutcome).toBe(`HTTP 401 for Bearer ${REDACTED}`);
  });

  it("has no group for an empty queue", () => {
    expect(groupDeadLetters([])).toEqual([]);
  });
});

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

describe("eventQueryOf", () => {
  it.each([
    [{}, { status: "dead_lettered", targetKey: undefined, page: 0 }],
    [
      { status: "delivered", page: "2" },
      { status: "delivered", targetKey: undefined, page: 2 },
    ],
    [
      { status: "bogus", page: "-1" },
      { status: "dead_lettered", targetKey: undefined, page: 0 },
    ],
    [
      { page: "1.5", target: " " },
      { status: "dead_lettered", targetKey: undefined, page: 0 },
    ],
    [
      { target: "group:tenant-42" },
      { status: "dead_lettered", targetKey: "group:tenant-42", page: 0 },
    ],
    [
      { target: "https://api.partner.example/hooks?x=1" },
      { status: "dead_lettered", targetKey: "http:https://api.partner.example:443", page: 0 },
    ],
  ])("reads %j as %j", (params, query) => {
    expect(eventQueryOf(params)).toEqual(query);
  });
});
