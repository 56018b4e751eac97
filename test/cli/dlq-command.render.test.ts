import { describe, expect, it } from "vitest";
import { renderListing } from "../../lib/cli/dlq-command.js";
import { aDeadLetterListing } from "../support/factories.js";

describe("renderListing (ricochet dlq list, text)", () => {
  it("shows an invalid envelope's problems, made inert (issue #36)", () => {
    const text = renderListing([
      aDeadLetterListing({
        messageId: "m-1",
        eventId: "e-1",
        reason: "invalid_envelope",
        attempts: 0,
        problems: [{ path: "eventId", message: "bad \u001b[31mred" }],
      }),
    ]);
    expect(text).toContain("eventId: bad");
    expect(text).not.toContain("\u001b[31m");
  });
});
