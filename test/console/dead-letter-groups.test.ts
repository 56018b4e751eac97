import { describe, expect, it } from "vitest";
import { groupDeadLetters, UNREADABLE_REASON } from "../../lib/console/dead-letter-groups.js";
import { REDACTED } from "../../lib/core/redact.js";
import { aDeadLetterListing } from "../support/factories.js";

describe("groupDeadLetters", () => {
  it("groups by reason, largest first, each oldest first, unreadable copies kept apart", () => {
    const groups = groupDeadLetters([
      aDeadLetterListing({
        messageId: "1",
        reason: "exhausted",
        deadLetteredAt: "2030-01-01T00:00:03.000Z",
      }),
      aDeadLetterListing({ messageId: "2", reason: "deadline" }),
      aDeadLetterListing({
        messageId: "3",
        reason: "exhausted",
        deadLetteredAt: "2030-01-01T00:00:01.000Z",
      }),
      aDeadLetterListing({ messageId: "4", error: "not a Ricochet dead-letter message" }),
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
      aDeadLetterListing({
        reason: "exhausted",
        lastOutcome: "HTTP 401 for Bearer abcdefgh12345678",
      }),
    ]);
    expect(group?.messages[0]?.lastOutcome).toBe(`HTTP 401 for Bearer ${REDACTED}`);
  });

  it("has no group for an empty queue", () => {
    expect(groupDeadLetters([])).toEqual([]);
  });
});
