import { describe, expect, it } from "vitest";
import type { DeadLetterListing } from "../../lib/app/dead-letter-scan.js";
import { renderListing } from "../../lib/cli/dlq-command.js";

describe("renderListing (ricochet dlq list, text)", () => {
  it("shows an invalid envelope's problems, made inert (issue #36)", () => {
    const text = renderListing([
      {
        messageId: "m-1",
        eventId: "e-1",
        reason: "invalid_envelope",
        attempts: 0,
        deadLetteredAt: "2030-01-01T00:00:00.000Z",
        receiveCount: 1,
        verified: true,
        problems: [{ path: "eventId", message: "bad \u001b[31mred" }],
      },
    ]);
    expect(text).toContain("eventId: bad");
    expect(text).not.toContain("\u001b[31m");
  });
});
