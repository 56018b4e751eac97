import { createHmac } from "node:crypto";
import { ConfigurationError } from "./errors.js";
import { parseSigningKeys, type SigningKeys } from "./signing-keys.js";
import { webhookIdOf } from "./webhook-id.js";

/*
 * Delivery signatures, the Standard Webhooks scheme (https://www.standardwebhooks.com): HMAC-SHA256
 * with each `whsec_` key over `<webhook-id>.<webhook-timestamp>.<body>`, sent as
 * `webhook-signature: v1,<base64> v1,<base64>…` (one per key, for rotation), so receivers in any
 * language verify with that project's libraries. The webhook-id (lib/core/webhook-id.ts) holds
 * the event id and the replay number, so everything a receiver deduplicates on is signed, and it
 * has no "." so the signed content reads one way only.
 *
 * During the transition the old headers are sent too (`Ricochet-Timestamp`,
 * `Ricochet-Signature: v1=<hex>` over `<event id>.<timestamp>.<body>` with the legacy key), so
 * receivers that verify them keep working until the deployment turns them off
 * (`RICOCHET_LEGACY_SIGNATURES=off`). Pure: the clock is always passed in.
 */

/** Header names of signed deliveries (lower case, as Node reports incoming headers). */
export const SIGNATURE_HEADERS = {
  WEBHOOK_ID: "webhook-id",
  WEBHOOK_TIMESTAMP: "webhook-timestamp",
  WEBHOOK_SIGNATURE: "webhook-signature",
  /** Legacy: the timestamp of `Ricochet-Signature`. */
  TIMESTAMP: "ricochet-timestamp",
  /** Legacy: `v1=<hex>` over `<event id>.<timestamp>.<body>`. */
  SIGNATURE: "ricochet-signature",
  EVENT_ID: "ricochet-event-id",
  IDEMPOTENCY_KEY: "idempotency-key",
  REPLAY: "ricochet-replay",
} as const;

/** The signature version of both schemes; the prefix lets a later one coexist in a migration. */
export const SIGNATURE_SCHEME = "v1";

/** Default window (seconds) either side of "now" within which a timestamp is accepted. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** What a signature covers. `body` is the exact request body, as sent. */
export interface SignedContent {
  readonly eventId: string;
  /** The replay the call belongs to (1 for the first); absent or 0 before any. */
  readonly replay?: number | undefined;
  readonly timestampSeconds: number;
  readonly body: string | Uint8Array;
}

/**
 * HMAC-SHA256 over `<id>.<timestamp>.<body>`: Standard Webhooks' with the webhook-id and a decoded
 * `whsec_` key; the legacy header's with the event id and the key as UTF-8 text.
 */
export const deliveryMac = (
  key: string | Uint8Array,
  id: string,
  timestampSeconds: number,
  body: string | Uint8Array,
): Buffer =>
  createHmac("sha256", key)
    .update(`${id}.${timestampSeconds}.`, "utf8")
    .update(typeof body === "string" ? Buffer.from(body, "utf8") : body)
    .digest();

/** Which headers {@link signDelivery} writes. */
export interface SigningOptions {
  /** Also send the legacy `Ricochet-Timestamp` / `Ricochet-Signature` (default true). */
  readonly legacySignatures?: boolean | undefined;
}

/**
 * Signs one delivery: the Standard Webhooks headers when the keys include `whsec_` ones, and the
 * legacy headers unless turned off.
 * @throws ConfigurationError when that leaves nothing to sign with.
 */
export const signDelivery = (
  keys: SigningKeys,
  content: SignedContent,
  options: SigningOptions = {},
): Record<string, string> => {
  const legacy = options.legacySignatures ?? true;
  if (keys.standard.length === 0 && !legacy) {
    throw new ConfigurationError(
      "the signing secret holds no whsec_ key and legacy signatures are off (RICOCHET_LEGACY_SIGNATURES=off): add a whsec_ key",
    );
  }
  const { eventId, timestampSeconds, body } = content;
  const timestamp = String(timestampSeconds);
  const webhookId = webhookIdOf(content);
  return {
    ...(keys.standard.length === 0
      ? {}
      : {
          "webhook-id": webhookId,
          "webhook-timestamp": timestamp,
          "webhook-signature": keys.standard
            .map(
              (key) =>
                `${SIGNATURE_SCHEME},${deliveryMac(key, webhookId, timestampSeconds, body).toString("base64")}`,
            )
            .join(" "),
        }),
    ...(legacy
      ? {
          "Ricochet-Timestamp": timestamp,
          "Ricochet-Signature": `${SIGNATURE_SCHEME}=${deliveryMac(keys.legacy, eventId, timestampSeconds, body).toString("hex")}`,
        }
      : {}),
  };
};

/**
 * Produces the signing headers for one request. The HTTP target calls it with the exact body it
 * is about to send; it may fetch the key (hence async). Throwing fails the attempt before any
 * request is sent.
 */
export type DeliverySigner = (request: {
  readonly eventId: string;
  readonly replay?: number | undefined;
  readonly body: string;
}) => Promise<Readonly<Record<string, string>>>;

/**
 * A signer with the keys in the secret value `getSecret` returns (typically a cached Secrets
 * Manager or SSM read; lib/core/signing-keys.ts says what it may hold), timestamped with the
 * injected clock `nowMs` (epoch milliseconds).
 */
export const createHmacSigner =
  (
    getSecret: () => Promise<string>,
    nowMs: () => number,
    options: SigningOptions = {},
  ): DeliverySigner =>
  async ({ eventId, replay, body }) => {
    const parsed = parseSigningKeys(await getSecret());
    if (!parsed.ok) throw new ConfigurationError(parsed.message);
    return signDelivery(
      parsed.keys,
      { eventId, replay, body, timestampSeconds: Math.floor(nowMs() / 1000) },
      options,
    );
  };
