import { createHmac, timingSafeEqual } from "node:crypto";

/*
 * Delivery signatures: HMAC-SHA256 over `${eventId}.${timestamp}.${body}`, sent as
 * `Ricochet-Timestamp: <epoch seconds>` and `Ricochet-Signature: v1=<hex>`. The event id and the
 * timestamp are inside the MAC so a captured body cannot be replayed under another id or, after
 * the tolerance window, at all. Pure: the clock is always passed in.
 */

/** Header names used by signed deliveries (lower case, as Node reports incoming headers). */
export const SIGNATURE_HEADERS = {
  TIMESTAMP: "ricochet-timestamp",
  SIGNATURE: "ricochet-signature",
  EVENT_ID: "ricochet-event-id",
} as const;

/** The only signature scheme so far; the prefix lets a later scheme coexist during a migration. */
export const SIGNATURE_SCHEME = "v1";

/** Default window (seconds) either side of "now" within which a timestamp is accepted. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** What a signature covers. `body` is the exact request body, as sent. */
export interface SignedContent {
  readonly eventId: string;
  readonly timestampSeconds: number;
  readonly body: string | Uint8Array;
}

const mac = (secret: string, content: SignedContent): Buffer =>
  createHmac("sha256", secret)
    .update(`${content.eventId}.${content.timestampSeconds}.`, "utf8")
    .update(typeof content.body === "string" ? Buffer.from(content.body, "utf8") : content.body)
    .digest();

/**
 * Signs one delivery.
 * @returns the headers to add to the request (`Ricochet-Timestamp`, `Ricochet-Signature`).
 */
export const signDelivery = (
  secret: string,
  content: SignedContent,
): { "Ricochet-Timestamp": string; "Ricochet-Signature": string } => ({
  "Ricochet-Timestamp": String(content.timestampSeconds),
  "Ricochet-Signature": `${SIGNATURE_SCHEME}=${mac(secret, content).toString("hex")}`,
});

/**
 * Produces the signing headers for one request. The HTTP target calls it with the exact body it
 * is about to send; it may fetch the key (hence async). Throwing fails the attempt before any
 * request is sent.
 */
export type DeliverySigner = (request: {
  readonly eventId: string;
  readonly body: string;
}) => Promise<Readonly<Record<string, string>>>;

/**
 * A signer using HMAC-SHA256 with the key `getSecret` returns (typically a cached Secrets
 * Manager or SSM read), timestamped with the injected clock `nowMs` (epoch milliseconds).
 */
export const createHmacSigner =
  (getSecret: () => Promise<string>, nowMs: () => number): DeliverySigner =>
  async ({ eventId, body }) =>
    signDelivery(await getSecret(), {
      eventId,
      body,
      timestampSeconds: Math.floor(nowMs() / 1000),
    });

/** Why a delivery failed verification. */
export const VerifyFailure = {
  MISSING_EVENT_ID: "missing_event_id",
  MISSING_TIMESTAMP: "missing_timestamp",
  MALFORMED_TIMESTAMP: "malformed_timestamp",
  TIMESTAMP_OUT_OF_TOLERANCE: "timestamp_out_of_tolerance",
  MISSING_SIGNATURE: "missing_signature",
  SIGNATURE_MISMATCH: "signature_mismatch",
  NO_SECRET: "no_secret",
} as const;
export type VerifyFailure = (typeof VerifyFailure)[keyof typeof VerifyFailure];

export type VerifyResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: VerifyFailure };

/** Incoming headers as Node (`IncomingHttpHeaders`) or the Fetch API (`Headers`) give them. */
export type IncomingHeaders =
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | { get(name: string): string | null };

const headerValue = (headers: IncomingHeaders, name: string): string | undefined => {
  if (typeof headers.get === "function") {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(",") : (value as string | undefined);
};

/** The hex digests of every `v1=` entry; several may be sent (comma-separated) during rotation. */
const v1Signatures = (header: string): Buffer[] =>
  header
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${SIGNATURE_SCHEME}=`))
    .map((part) => part.slice(SIGNATURE_SCHEME.length + 1))
    .filter((hex) => /^[0-9a-f]{64}$/i.test(hex))
    .map((hex) => Buffer.from(hex, "hex"));

/**
 * Verifies a signed delivery, for receivers. Accepts several secrets so a receiver can trust the
 * old and the new key while they rotate. Comparison is constant-time.
 */
export const verifyDelivery = (input: {
  readonly secret: string | readonly string[];
  readonly headers: IncomingHeaders;
  /** The raw request body, exactly as received (not re-serialised JSON). */
  readonly body: string | Uint8Array;
  readonly nowSeconds: number;
  readonly toleranceSeconds?: number;
}): VerifyResult => {
  const secrets = (typeof input.secret === "string" ? [input.secret] : input.secret).filter(
    (secret) => secret !== "",
  );
  if (secrets.length === 0) return { ok: false, reason: VerifyFailure.NO_SECRET };
  const eventId = headerValue(input.headers, SIGNATURE_HEADERS.EVENT_ID);
  if (eventId === undefined || eventId === "") {
    return { ok: false, reason: VerifyFailure.MISSING_EVENT_ID };
  }
  const timestamp = headerValue(input.headers, SIGNATURE_HEADERS.TIMESTAMP);
  if (timestamp === undefined) return { ok: false, reason: VerifyFailure.MISSING_TIMESTAMP };
  if (!/^\d{1,15}$/.test(timestamp)) {
    return { ok: false, reason: VerifyFailure.MALFORMED_TIMESTAMP };
  }
  const timestampSeconds = Number(timestamp);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(input.nowSeconds - timestampSeconds) > tolerance) {
    return { ok: false, reason: VerifyFailure.TIMESTAMP_OUT_OF_TOLERANCE };
  }
  const header = headerValue(input.headers, SIGNATURE_HEADERS.SIGNATURE);
  const received = header === undefined ? [] : v1Signatures(header);
  if (received.length === 0) return { ok: false, reason: VerifyFailure.MISSING_SIGNATURE };
  const content = { eventId, timestampSeconds, body: input.body };
  // Every secret is checked against every signature, without early exit, to keep timing flat.
  let matched = false;
  for (const secret of secrets) {
    const expected = mac(secret, content);
    for (const signature of received) {
      if (timingSafeEqual(expected, signature)) matched = true;
    }
  }
  return matched ? { ok: true } : { ok: false, reason: VerifyFailure.SIGNATURE_MISMATCH };
};
