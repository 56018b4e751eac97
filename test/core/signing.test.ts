import { createHmac } from "node:crypto";
import fc from "fast-check";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../lib/core/errors.js";
import { createHmacSigner, signDelivery } from "../../lib/core/signing.js";
import { parseSigningKeys, type SigningKeys } from "../../lib/core/signing-keys.js";

const KEY = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const NEXT_KEY = `whsec_${Buffer.alloc(24, 9).toString("base64")}`;
const LEGACY = "legacy-key-0123456789";

const keysOf = (value: string): SigningKeys => {
  const parsed = parseSigningKeys(value);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.keys;
};

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Event ids as producers write them, dots included (the case the old string got wrong). */
const eventIds = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,40}$/);

describe("signDelivery", () => {
  it("signs the Standard Webhooks way: the standardwebhooks package's Webhook.verify accepts it", () => {
    fc.assert(
      fc.property(eventIds, fc.nat(5), fc.string(), (eventId, replay, body) => {
        const headers = signDelivery(keysOf(KEY), {
          eventId,
          replay,
          body,
          timestampSeconds: nowSeconds(),
        });
        expect(() => new Webhook(KEY).verify(body, headers, { jsonParse: false })).not.toThrow();
      }),
    );
  });

  it("signs with every whsec_ key, so a receiver holding either one verifies (rotation)", () => {
    const body = '{"orderId":"o-1"}';
    const headers = signDelivery(keysOf(`${NEXT_KEY} ${KEY}`), {
      eventId: "evt-1",
      body,
      timestampSeconds: nowSeconds(),
    });
    expect(headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    for (const key of [KEY, NEXT_KEY]) {
      expect(() => new Webhook(key).verify(body, headers)).not.toThrow();
    }
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(body, headers),
    ).toThrow();
  });

  it("keeps the legacy header as it was: HMAC-SHA256 over eventId.timestamp.body, hex, v1=", () => {
    const expected = createHmac("sha256", LEGACY).update("evt-1.1700000000.{}").digest("hex");
    expect(
      signDelivery(keysOf(`${KEY} ${LEGACY}`), {
        eventId: "evt-1",
        timestampSeconds: 1_700_000_000,
        body: "{}",
      }),
    ).toMatchObject({ "Ricochet-Timestamp": "1700000000", "Ricochet-Signature": `v1=${expected}` });
  });

  it.each([
    [
      "an old secret: the legacy header only",
      LEGACY,
      {},
      ["Ricochet-Signature", "Ricochet-Timestamp"],
    ],
    [
      "whsec_ keys: both schemes",
      KEY,
      {},
      [
        "Ricochet-Signature",
        "Ricochet-Timestamp",
        "webhook-id",
        "webhook-signature",
        "webhook-timestamp",
      ],
    ],
    [
      "legacy signatures off: Standard Webhooks only",
      `${KEY} ${LEGACY}`,
      { legacySignatures: false },
      ["webhook-id", "webhook-signature", "webhook-timestamp"],
    ],
  ])("writes, for %s, exactly its headers", (_name, value, options, names) => {
    const headers = signDelivery(
      keysOf(value),
      { eventId: "e", timestampSeconds: 1, body: "" },
      options,
    );
    expect(Object.keys(headers).sort()).toEqual(names);
  });

  it("refuses to sign with legacy signatures off and no whsec_ key, saying what to add", () => {
    expect(() =>
      signDelivery(
        keysOf(LEGACY),
        { eventId: "e", timestampSeconds: 1, body: "" },
        {
          legacySignatures: false,
        },
      ),
    ).toThrow(/no whsec_ key.*add a whsec_ key/);
  });

  it("signs a byte body the same as its UTF-8 string", () => {
    const body = '{"name":"Zoë ✓"}';
    const content = { eventId: "e", timestampSeconds: 1 };
    expect(signDelivery(keysOf(KEY), { ...content, body: Buffer.from(body, "utf8") })).toEqual(
      signDelivery(keysOf(KEY), { ...content, body }),
    );
  });
});

describe("createHmacSigner", () => {
  it("stamps the injected clock's whole seconds, and names the replay in the webhook-id", async () => {
    const signer = createHmacSigner(
      async () => KEY,
      () => 1_900_000_000_999,
    );
    const headers = await signer({ eventId: "order.7", replay: 2, body: "[1]" });
    expect(headers).toEqual(
      signDelivery(keysOf(KEY), {
        eventId: "order.7",
        replay: 2,
        timestampSeconds: 1_900_000_000,
        body: "[1]",
      }),
    );
    expect(headers["webhook-id"]).toBe("order%2E7~replay-2");
  });

  it("fails with a ConfigurationError that never quotes the secret", async () => {
    const secret = `${KEY} whsec_not*base64`;
    const signer = createHmacSigner(
      async () => secret,
      () => 0,
    );
    const error = await signer({ eventId: "e", body: "" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(String(error)).not.toContain("not*base64");
  });
});
