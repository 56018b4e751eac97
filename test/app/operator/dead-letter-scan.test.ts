import { describe, expect, it } from "vitest";
import {
  parseDeadLetterCopy,
  type ScannedMessage,
  toListing,
} from "../../../lib/app/operator/dead-letter-scan.js";
import { DEAD_LETTER_KIND, DEAD_LETTER_VERSION } from "../../../lib/core/dead-letter.js";

const summaryOf = (extra: Record<string, unknown>): string =>
  JSON.stringify({
    kind: DEAD_LETTER_KIND,
    version: DEAD_LETTER_VERSION,
    reason: "invalid_envelope",
    eventId: "nc order 10",
    attempts: 0,
    generation: 0,
    deadLetteredAt: "2030-01-01T00:00:00.000Z",
    ...extra,
  });

const scanned = (summary: string): ScannedMessage => ({
  received: {
    messageId: "m-1",
    receiptHandle: "r-1",
    body: "{}",
    summary,
    schedule: { generation: 0 },
    receiveCount: 1,
    sentAtMs: Date.parse("2030-01-01T00:00:00.000Z"),
  },
  parsed: parseDeadLetterCopy("{}", summary),
  deadLetteredAtMs: Date.parse("2030-01-01T00:00:00.000Z"),
});

describe("toListing", () => {
  it("lists an invalid envelope's problems, which its copy's summary carries (issue #36)", () => {
    const problems = [
      { path: "eventId", message: "may hold only letters, digits and . _ : @ / + = -" },
    ];
    const listing = toListing(scanned(summaryOf({ problems })), undefined);
    expect(listing.problems).toEqual(problems);
  });

  it("reads a copy whose problems are not Ricochet's shape, without them", () => {
    const listing = toListing(scanned(summaryOf({ problems: "not a list" })), undefined);
    expect(listing).toMatchObject({ reason: "invalid_envelope", problems: undefined });
  });
});
