import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Envelope } from "../../lib/core/envelope.js";
import { envelopeDigest } from "../../lib/core/envelope-digest.js";
import { anEnvelope } from "../support/factories.js";

const aPayload = () => fc.jsonValue().map((v) => v as Envelope["payload"]);

/** The same object with its keys in reverse order, at every level. */
const reversed = (value: unknown): unknown => {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(reversed);
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .reverse()
      .map(([k, v]) => [k, reversed(v)]),
  );
};

describe("envelopeDigest", () => {
  it("is the same for the same event however it was serialised", () => {
    fc.assert(
      fc.property(aPayload(), (payload) => {
        const envelope = anEnvelope({ eventId: "e-1", payload });
        const reread = JSON.parse(JSON.stringify(reversed(envelope))) as Envelope;
        expect(envelopeDigest(reread)).toBe(envelopeDigest(envelope));
        expect(envelopeDigest({ ...envelope, version: 1 })).toBe(envelopeDigest(envelope));
      }),
    );
  });

  it("reads 1e20 and 100000000000000000000 as the same number", () => {
    const a = JSON.parse(
      '{"eventId":"e","target":{"type":"lambda","functionName":"f"},"payload":1e20}',
    );
    const b = JSON.parse(
      '{"eventId":"e","target":{"type":"lambda","functionName":"f"},"payload":100000000000000000000}',
    );
    expect(envelopeDigest(a)).toBe(envelopeDigest(b));
  });

  it.each([
    ["payload", { payload: { changed: true } }],
    ["target", { target: { type: "http", url: "https://elsewhere.example.com/" } }],
    ["policy", { policy: { maxAttempts: 2 } }],
    ["deadline", { deadline: "2031-01-01T00:00:00Z" }],
  ] as const)("differs when the %s differs", (_field, change) => {
    const envelope = anEnvelope({ eventId: "e-1" });
    expect(envelopeDigest({ ...envelope, ...change } as Envelope)).not.toBe(
      envelopeDigest(envelope),
    );
  });
});
