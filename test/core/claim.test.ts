import { describe, expect, it } from "vitest";
import { explainRefusedClaim, mayClaim } from "../../lib/core/claim.js";
import type { EventRecord } from "../../lib/core/record.js";
import { EventStatus } from "../../lib/core/status.js";
import { anEventRecord, FIXED_NOW_MS } from "../support/factories.js";

const NOW = FIXED_NOW_MS;
const DIGEST = "accepted";
const at = (overrides: Partial<EventRecord>): EventRecord =>
  anEventRecord({ envelopeDigest: DIGEST, generation: 2, attempts: 2, ...overrides });
const live = { status: EventStatus.IN_FLIGHT, leaseExpiresAt: NOW + 1 };
const expired = { status: EventStatus.IN_FLIGHT, leaseExpiresAt: NOW - 1 };
const placeholder = {
  status: EventStatus.REJECTED,
  deadLetterReason: "invalid_envelope" as const,
  attempts: 0,
  envelopeDigest: undefined,
  generation: 0,
};

describe("mayClaim", () => {
  it.each([
    ["no record yet", undefined, 0, DIGEST, true],
    ["the waiting generation", at({ status: EventStatus.RETRY_SCHEDULED }), 2, DIGEST, true],
    ["a pending redrive", at({ status: EventStatus.PENDING }), 2, DIGEST, true],
    ["its own generation after the lease expired", at(expired), 2, DIGEST, true],
    ["its own generation under a live lease", at(live), 2, DIGEST, false],
    // The issuer sent generation 3 and died (or failed to record it): the copy carries on.
    ["the next generation after the issuer's lease expired", at(expired), 3, DIGEST, true],
    ["the next generation under the issuer's live lease", at(live), 3, DIGEST, false],
    ["two generations ahead, lease expired", at(expired), 4, DIGEST, false],
    ["the next generation of a terminal record", at({ status: "dead_lettered" }), 3, DIGEST, false],
    ["a stale generation", at({ status: EventStatus.RETRY_SCHEDULED }), 1, DIGEST, false],
    ["another envelope", at({ status: EventStatus.RETRY_SCHEDULED }), 2, "forged", false],
    ["another envelope over an expired lease", at(expired), 2, "forged", false],
    ["a record from before digests", at({ ...expired, envelopeDigest: undefined }), 2, "x", true],
    ["an invalid envelope's placeholder", at(placeholder), 0, DIGEST, true],
    [
      "a real rejection",
      at({ status: EventStatus.REJECTED, deadLetterReason: "rejected" }),
      2,
      DIGEST,
      false,
    ],
    ["a delivered event", at({ status: EventStatus.DELIVERED }), 2, DIGEST, false],
  ] as const)("%s: %s", (_name, record, generation, digest, admitted) => {
    expect(mayClaim(record, generation, NOW, digest)).toBe(admitted);
  });
});

describe("explainRefusedClaim", () => {
  it.each([
    [
      "another envelope, whatever the generation",
      at({ status: "delivered" }),
      0,
      "forged",
      "conflict",
    ],
    ["a duplicate of a finished event", at({ status: "delivered" }), 2, DIGEST, "finished"],
    ["an older copy", at({ status: "retry_scheduled" }), 1, DIGEST, "stale"],
    ["a copy its issuer has not recorded", at(live), 3, DIGEST, "ahead"],
    ["a copy of the leased generation", at(live), 2, DIGEST, "lease_held"],
  ] as const)("%s is %s", (_name, record, generation, digest, kind) => {
    expect(explainRefusedClaim(record, generation, NOW, digest).kind).toBe(kind);
  });
});
