import { describe, expect, it } from "vitest";
import type { DeadLetterListing } from "../../lib/app/dead-letter-scan.js";
import { groupDeadLetters, UNREADABLE_REASON } from "../../lib/console/dead-letter-groups.js";
import { REDACTED } from "../../lib/core/redact.js";

const aListing = (overrides: Partial<DeadLetterListing>): DeadLetterListing => ({
  messageId: "m",
  deadLetteredAt: "2030-01-01T00:00:00.000Z",
  receiveCount: 1,
  verified: true,
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
