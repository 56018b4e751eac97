import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createHmacSigner,
  type IncomingHeaders,
  signDelivery,
  VerifyFailure,
  verifyDelivery,
} from "../../lib/core/signing.js";

const SECRET = "whsec_test_0123456789";
const NOW = 1_900_000_000;

/** The headers a receiver sees for a delivery signed at `timestampSeconds`. */
const signedHeaders = (
  secret: string,
  eventId: string,
  body: string,
  timestampSeconds = NOW,
): Record<string, string> => ({
  "ricochet-event-id": eventId,
  ...Object.fromEntries(
    Object.entries(signDelivery(secret, { eventId, timestampSeconds, body })).map(([k, v]) => [
      k.toLowerCase(),
      v,
    ]),
  ),
});

describe("signDelivery", () => {
  it("is HMAC-SHA256 over eventId.timestamp.body, hex, with the v1 prefix", () => {
    const expected = createHmac("sha256", SECRET).update("evt-1.1700000000.{}").digest("hex");
    expect(
      signDelivery(SECRET, { eventId: "evt-1", timestampSeconds: 1_700_000_000, body: "{}" }),
    ).toEqual({ "Ricochet-Timestamp": "1700000000", "Ricochet-Signature": `v1=${expected}` });
  });

  it("signs a byte body the same as its UTF-8 string", () => {
    const body = '{"name":"Zoë ✓"}';
    const content = { eventId: "e", timestampSeconds: 1 };
    expect(signDelivery(SECRET, { ...content, body: Buffer.from(body, "utf8") })).toEqual(
      signDelivery(SECRET, { ...content, body }),
    );
  });
});

describe("createHmacSigner", () => {
  it("stamps the injected clock's whole seconds and uses the loaded secret", async () => {
    const signer = createHmacSigner(
      async () => SECRET,
      () => NOW * 1000 + 999,
    );
    const headers = await signer({ eventId: "evt-9", body: "[1]" });
    expect(headers).toEqual(
      signDelivery(SECRET, { eventId: "evt-9", timestampSeconds: NOW, body: "[1]" }),
    );
  });
});

describe("verifyDelivery", () => {
  const body = '{"orderId":"o-1"}';
  const headers = signedHeaders(SECRET, "evt-1", body);

  it("accepts a delivery signed with the secret", () => {
    expect(verifyDelivery({ secret: SECRET, headers, body, nowSeconds: NOW })).toEqual({
      ok: true,
    });
  });

  it("accepts any of several secrets, for rotation", () => {
    const result = verifyDelivery({
      secret: ["new-secret", SECRET],
      headers,
      body,
      nowSeconds: NOW,
    });
    expect(result).toEqual({ ok: true });
  });

  it("accepts Fetch API Headers and mixed-case header names", () => {
    const fetchHeaders = new Headers(headers);
    expect(
      verifyDelivery({ secret: SECRET, headers: fetchHeaders, body, nowSeconds: NOW }).ok,
    ).toBe(true);
    const mixed = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyDelivery({ secret: SECRET, headers: mixed, body, nowSeconds: NOW }).ok).toBe(true);
  });

  it("accepts a signature among several v1 entries", () => {
    const several = {
      ...headers,
      "ricochet-signature": `v1=${"0".repeat(64)}, ${headers["ricochet-signature"]}`,
    };
    expect(verifyDelivery({ secret: SECRET, headers: several, body, nowSeconds: NOW }).ok).toBe(
      true,
    );
  });

  it.each([
    ["tolerance edge, early", NOW - 300, { ok: true }],
    ["tolerance edge, late", NOW + 300, { ok: true }],
    ["too old", NOW - 301, { ok: false, reason: VerifyFailure.TIMESTAMP_OUT_OF_TOLERANCE }],
    ["too far ahead", NOW + 301, { ok: false, reason: VerifyFailure.TIMESTAMP_OUT_OF_TOLERANCE }],
  ])("judges a timestamp %s", (_name, signedAt, expected) => {
    const stamped = signedHeaders(SECRET, "evt-1", body, signedAt);
    expect(verifyDelivery({ secret: SECRET, headers: stamped, body, nowSeconds: NOW })).toEqual(
      expected,
    );
  });

  const without = (name: string): IncomingHeaders =>
    Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));

  it.each([
    ["no event id", without("ricochet-event-id"), SECRET, VerifyFailure.MISSING_EVENT_ID],
    ["no timestamp", without("ricochet-timestamp"), SECRET, VerifyFailure.MISSING_TIMESTAMP],
    ["no signature", without("ricochet-signature"), SECRET, VerifyFailure.MISSING_SIGNATURE],
    [
      "a timestamp that is not a number",
      { ...headers, "ricochet-timestamp": "12e9" },
      SECRET,
      VerifyFailure.MALFORMED_TIMESTAMP,
    ],
    [
      "an unknown scheme only",
      { ...headers, "ricochet-signature": "v0=abc" },
      SECRET,
      VerifyFailure.MISSING_SIGNATURE,
    ],
    ["the wrong secret", headers, "other-secret", VerifyFailure.SIGNATURE_MISMATCH],
    ["no secret at all", headers, [], VerifyFailure.NO_SECRET],
    ["an empty secret", headers, "", VerifyFailure.NO_SECRET],
  ])("refuses a delivery with %s", (_name, given, secret, reason) => {
    expect(verifyDelivery({ secret, headers: given, body, nowSeconds: NOW })).toEqual({
      ok: false,
      reason,
    });
  });

  const eventIds = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,40}$/);
  const secrets = fc.string({ minLength: 1, maxLength: 64 });

  it("round-trips: whatever is signed verifies", () => {
    fc.assert(
      fc.property(
        secrets,
        eventIds,
        fc.string(),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (s, id, b, t) => {
          const signed = signedHeaders(s, id, b, t);
          expect(verifyDelivery({ secret: s, headers: signed, body: b, nowSeconds: t })).toEqual({
            ok: true,
          });
        },
      ),
    );
  });

  it("fails on any change to the body", () => {
    fc.assert(
      fc.property(secrets, eventIds, fc.string(), fc.string(), (s, id, b, other) => {
        fc.pre(other !== b);
        const signed = signedHeaders(s, id, b);
        const result = verifyDelivery({ secret: s, headers: signed, body: other, nowSeconds: NOW });
        expect(result).toEqual({ ok: false, reason: VerifyFailure.SIGNATURE_MISMATCH });
      }),
    );
  });

  it("fails on any change to the event id or the timestamp within tolerance", () => {
    fc.assert(
      fc.property(
        secrets,
        eventIds,
        eventIds,
        fc.integer({ min: 1, max: 300 }),
        (s, id, otherId, shift) => {
          fc.pre(otherId !== id);
          const signed = signedHeaders(s, id, body);
          const renamed = { ...signed, "ricochet-event-id": otherId };
          const restamped = { ...signed, "ricochet-timestamp": String(NOW - shift) };
          for (const tampered of [renamed, restamped]) {
            expect(verifyDelivery({ secret: s, headers: tampered, body, nowSeconds: NOW }).ok).toBe(
              false,
            );
          }
        },
      ),
    );
  });

  it("fails on any flipped signature digit", () => {
    fc.assert(
      fc.property(fc.nat(63), fc.integer({ min: 1, max: 15 }), (position, delta) => {
        const hex = (headers["ricochet-signature"] ?? "").slice(3);
        const digit = (Number.parseInt(hex[position] ?? "0", 16) + delta) % 16;
        const flipped = `v1=${hex.slice(0, position)}${digit.toString(16)}${hex.slice(position + 1)}`;
        const tampered = { ...headers, "ricochet-signature": flipped };
        expect(
          verifyDelivery({ secret: SECRET, headers: tampered, body, nowSeconds: NOW }),
        ).toEqual({ ok: false, reason: VerifyFailure.SIGNATURE_MISMATCH });
      }),
    );
  });
});
