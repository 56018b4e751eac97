import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type IncomingHeaders,
  VerifyFailure,
  verifyDelivery,
} from "../../lib/core/delivery-verification.js";
import { type SignedContent, signDelivery } from "../../lib/core/signing.js";
import { parseSigningKeys } from "../../lib/core/signing-keys.js";

const KEY = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const OTHER_KEY = `whsec_${Buffer.alloc(32, 8).toString("base64")}`;
const LEGACY = "legacy-key-0123456789";
const NOW = 1_900_000_000;
const body = '{"orderId":"o-1"}';

/** The headers a receiver sees: the signature's and Ricochet's own, as the HTTP target sends them. */
const delivered = (
  content: Partial<SignedContent> & { readonly eventId: string },
  secret = `${KEY} ${LEGACY}`,
): Record<string, string> => {
  const parsed = parseSigningKeys(secret);
  if (!parsed.ok) throw new Error(parsed.message);
  const signed = signDelivery(parsed.keys, {
    body,
    timestampSeconds: NOW,
    ...content,
  });
  return Object.fromEntries(
    Object.entries({
      ...signed,
      "Idempotency-Key": content.eventId,
      "Ricochet-Event-Id": content.eventId,
      ...(content.replay ? { "Ricochet-Replay": String(content.replay) } : {}),
    }).map(([name, value]) => [name.toLowerCase(), value]),
  );
};

const verify = (
  headers: IncomingHeaders,
  options: { secret?: string | string[]; body?: string; acceptLegacySignature?: boolean } = {},
) =>
  verifyDelivery({
    secret: options.secret ?? KEY,
    headers,
    body: options.body ?? body,
    nowSeconds: NOW,
    ...(options.acceptLegacySignature === undefined
      ? {}
      : { acceptLegacySignature: options.acceptLegacySignature }),
  });

const without = (headers: Record<string, string>, ...names: string[]): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));

const headers = delivered({ eventId: "evt-1" });

describe("verifyDelivery, Standard Webhooks", () => {
  it("accepts a signed delivery and says what the signature vouches for", () => {
    expect(verify(delivered({ eventId: "order.7", replay: 2 }))).toEqual({
      ok: true,
      scheme: "standard-webhooks",
      webhookId: "order%2E7~replay-2",
      eventId: "order.7",
      replay: 2,
    });
  });

  it("accepts any of several secrets, for rotation", () => {
    expect(verify(headers, { secret: [OTHER_KEY, KEY] }).ok).toBe(true);
  });

  it("accepts Fetch API Headers and mixed-case header names", () => {
    expect(verify(new Headers(headers)).ok).toBe(true);
    const mixed = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verify(mixed).ok).toBe(true);
  });

  it.each([
    ["tolerance edge, early", NOW - 300, true],
    ["tolerance edge, late", NOW + 300, true],
    ["too old", NOW - 301, false],
    ["too far ahead", NOW + 301, false],
  ])("judges a timestamp %s", (_name, signedAt, ok) => {
    const result = verify(delivered({ eventId: "evt-1", timestampSeconds: signedAt }));
    expect(result.ok ? true : result.reason).toBe(
      ok ? true : VerifyFailure.TIMESTAMP_OUT_OF_TOLERANCE,
    );
  });

  it.each([
    ["no webhook-id", without(headers, "webhook-id"), KEY, VerifyFailure.MISSING_WEBHOOK_ID],
    [
      "a webhook-id Ricochet never sends",
      { ...headers, "webhook-id": "evt.1" },
      KEY,
      VerifyFailure.MALFORMED_WEBHOOK_ID,
    ],
    ["no timestamp", without(headers, "webhook-timestamp"), KEY, VerifyFailure.MISSING_TIMESTAMP],
    [
      "a timestamp that is not a number",
      { ...headers, "webhook-timestamp": "12e9" },
      KEY,
      VerifyFailure.MALFORMED_TIMESTAMP,
    ],
    [
      "no signature of a known version",
      { ...headers, "webhook-signature": "v2,abc" },
      KEY,
      VerifyFailure.MISSING_SIGNATURE,
    ],
    ["the wrong key", headers, OTHER_KEY, VerifyFailure.SIGNATURE_MISMATCH],
    ["a malformed whsec_ secret", headers, "whsec_***", VerifyFailure.MALFORMED_SECRET],
    ["only a legacy secret", headers, LEGACY, VerifyFailure.NO_WHSEC_SECRET],
    ["no secret at all", headers, [], VerifyFailure.NO_SECRET],
    ["an empty secret", headers, "", VerifyFailure.NO_SECRET],
    [
      "only the legacy signature",
      without(headers, "webhook-id", "webhook-timestamp", "webhook-signature"),
      KEY,
      VerifyFailure.LEGACY_SIGNATURE_REFUSED,
    ],
    [
      "no signature of either kind",
      without(
        headers,
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
        "ricochet-signature",
      ),
      KEY,
      VerifyFailure.MISSING_SIGNATURE,
    ],
  ])("refuses a delivery with %s", (_name, given, secret, reason) => {
    expect(verify(given, { secret })).toEqual({ ok: false, reason });
  });

  it.each([
    ["a changed Idempotency-Key", { ...headers, "idempotency-key": "evt-1-again" }],
    ["a changed Ricochet-Event-Id", { ...headers, "ricochet-event-id": "evt-2" }],
    ["an added Ricochet-Replay", { ...headers, "ricochet-replay": "7" }],
    [
      "a changed Ricochet-Replay",
      { ...delivered({ eventId: "evt-1", replay: 1 }), "ricochet-replay": "2" },
    ],
  ])("refuses a captured delivery replayed with %s", (_name, tampered) => {
    expect(verify(tampered)).toEqual({ ok: false, reason: VerifyFailure.HEADER_MISMATCH });
  });

  it("refuses a captured delivery renamed as a replay: the webhook-id is signed", () => {
    const renamed = { ...headers, "webhook-id": "evt-1~replay-1", "ricochet-replay": "1" };
    expect(verify(renamed)).toEqual({ ok: false, reason: VerifyFailure.SIGNATURE_MISMATCH });
  });

  it("refuses the id/body shift the old signed string allowed (event V.<t>, body 5)", () => {
    const genuine = delivered({ eventId: `V.${NOW}`, body: "5" });
    const shifted = {
      ...genuine,
      "webhook-id": "V",
      "idempotency-key": "V",
      "ricochet-event-id": "V",
    };
    expect(verify(shifted, { body: `${NOW}.5` })).toEqual({
      ok: false,
      reason: VerifyFailure.SIGNATURE_MISMATCH,
    });
  });

  const eventIds = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,40}$/);

  it("round-trips: whatever is signed verifies, as the event and replay signed", () => {
    fc.assert(
      fc.property(eventIds, fc.nat(9), fc.string(), (eventId, replay, text) => {
        const result = verify(delivered({ eventId, replay, body: text }), { body: text });
        expect(result).toMatchObject({ ok: true, eventId, replay });
      }),
    );
  });

  it("fails on any change to the body", () => {
    fc.assert(
      fc.property(fc.string(), (other) => {
        fc.pre(other !== body);
        expect(verify(headers, { body: other })).toEqual({
          ok: false,
          reason: VerifyFailure.SIGNATURE_MISMATCH,
        });
      }),
    );
  });

  it("fails on any flipped signature byte", () => {
    const mac = Buffer.from((headers["webhook-signature"] ?? "").slice(3), "base64");
    fc.assert(
      fc.property(fc.nat(mac.length - 1), fc.integer({ min: 1, max: 255 }), (at, delta) => {
        const flipped = Buffer.from(mac);
        flipped[at] = ((flipped[at] ?? 0) + delta) % 256;
        const tampered = { ...headers, "webhook-signature": `v1,${flipped.toString("base64")}` };
        expect(verify(tampered)).toEqual({ ok: false, reason: VerifyFailure.SIGNATURE_MISMATCH });
      }),
    );
  });
});

describe("verifyDelivery, the legacy signature during the transition", () => {
  const legacyOnly = delivered({ eventId: "evt-1" }, LEGACY);

  it("accepts it when asked, as the event it signs, never as a replay", () => {
    expect(verify(legacyOnly, { secret: LEGACY, acceptLegacySignature: true })).toEqual({
      ok: true,
      scheme: "legacy",
      webhookId: "evt-1",
      eventId: "evt-1",
      replay: 0,
    });
  });

  it("lets a receiver with only the legacy key verify a delivery that carries both", () => {
    expect(verify(headers, { secret: LEGACY, acceptLegacySignature: true })).toMatchObject({
      ok: true,
      scheme: "legacy",
    });
  });

  it.each([
    [
      "a Ricochet-Replay, which it does not sign",
      { "ricochet-replay": "1" },
      VerifyFailure.UNSIGNED_REPLAY,
    ],
    ["a changed Idempotency-Key", { "idempotency-key": "evt-x" }, VerifyFailure.HEADER_MISMATCH],
    ["the wrong key", {}, VerifyFailure.SIGNATURE_MISMATCH],
  ])("refuses one with %s", (_name, extra, reason) => {
    const secret = reason === VerifyFailure.SIGNATURE_MISMATCH ? "another" : LEGACY;
    expect(verify({ ...legacyOnly, ...extra }, { secret, acceptLegacySignature: true })).toEqual({
      ok: false,
      reason,
    });
  });
});
