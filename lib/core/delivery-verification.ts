import { timingSafeEqual } from "node:crypto";
import {
  DEFAULT_TOLERANCE_SECONDS,
  deliveryMac,
  SIGNATURE_HEADERS,
  SIGNATURE_SCHEME,
} from "./signing.js";
import { decodeStandardKey, isStandardKeyText } from "./signing-keys.js";
import { parseWebhookId, webhookIdOf } from "./webhook-id.js";

/*
 * The receiver's side of lib/core/signing.ts. A Standard Webhooks signature is checked whenever
 * the request carries one; the legacy `Ricochet-Signature` alone is accepted only when the
 * receiver asks for it (a deployment that does not send Standard Webhooks headers yet), since it
 * signs neither the replay number nor an unambiguous string. Either way the unsigned copies of
 * what is signed (`Idempotency-Key`, `Ricochet-Event-Id`, `Ricochet-Replay`) must agree with it,
 * so a receiver that reads them is not fooled by a changed or added one.
 */

/** Why a delivery failed verification. */
export const VerifyFailure = {
  NO_SECRET: "no_secret",
  /** A `whsec_` secret that is not a Standard Webhooks key. */
  MALFORMED_SECRET: "malformed_secret",
  /** Standard Webhooks headers came, but none of the secrets is a `whsec_` key. */
  NO_WHSEC_SECRET: "no_whsec_secret",
  MISSING_WEBHOOK_ID: "missing_webhook_id",
  /** A webhook-id Ricochet never sends. */
  MALFORMED_WEBHOOK_ID: "malformed_webhook_id",
  /** Legacy: no `Ricochet-Event-Id`. */
  MISSING_EVENT_ID: "missing_event_id",
  MISSING_TIMESTAMP: "missing_timestamp",
  MALFORMED_TIMESTAMP: "malformed_timestamp",
  TIMESTAMP_OUT_OF_TOLERANCE: "timestamp_out_of_tolerance",
  MISSING_SIGNATURE: "missing_signature",
  SIGNATURE_MISMATCH: "signature_mismatch",
  /** Only the legacy signature came, and the receiver did not accept those. */
  LEGACY_SIGNATURE_REFUSED: "legacy_signature_refused",
  /** A legacy-signed delivery carried `Ricochet-Replay`, which that signature does not cover. */
  UNSIGNED_REPLAY: "unsigned_replay",
  /** `Idempotency-Key`, `Ricochet-Event-Id` or `Ricochet-Replay` disagree with what is signed. */
  HEADER_MISMATCH: "header_mismatch",
} as const;
export type VerifyFailure = (typeof VerifyFailure)[keyof typeof VerifyFailure];

/** A verified delivery: what it is, as the signature vouches for it. */
export interface VerifiedDelivery {
  readonly ok: true;
  readonly scheme: "standard-webhooks" | "legacy";
  /** Deduplicate on this: retries share it, a replay has its own. */
  readonly webhookId: string;
  /** The event id (`Idempotency-Key`): the same across retries, redrives and replays. */
  readonly eventId: string;
  /** 0 before any replay; n on the calls of the n-th replay. */
  readonly replay: number;
}

export type VerifyResult =
  | VerifiedDelivery
  | { readonly ok: false; readonly reason: VerifyFailure };

/** Incoming headers as Node (`IncomingHttpHeaders`) or the Fetch API (`Headers`) give them. */
export type IncomingHeaders =
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | { get(name: string): string | null };

/** Options of {@link verifyDelivery}. */
export interface VerifyInput {
  /**
   * The keys to trust, several while they rotate: `whsec_…` Standard Webhooks keys, and, with
   * `acceptLegacySignature`, the legacy key.
   */
  readonly secret: string | readonly string[];
  readonly headers: IncomingHeaders;
  /** The raw request body, exactly as received (not re-serialised JSON). */
  readonly body: string | Uint8Array;
  readonly nowSeconds: number;
  readonly toleranceSeconds?: number;
  /**
   * Accept a delivery that carries only the legacy `Ricochet-Signature` (default false): for a
   * deployment whose secret has no `whsec_` key yet. Weaker: see the README's "Receiving".
   */
  readonly acceptLegacySignature?: boolean;
}

type Failed = { readonly ok: false; readonly reason: VerifyFailure };
const fail = (reason: VerifyFailure): Failed => ({ ok: false, reason });

const headerValue = (headers: IncomingHeaders, name: string): string | undefined => {
  if (typeof headers.get === "function") {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(",") : (value as string | undefined);
};

/** The timestamp in seconds, or why it is refused. */
const checkedTimestamp = (value: string | undefined, input: VerifyInput): number | Failed => {
  if (value === undefined) return fail(VerifyFailure.MISSING_TIMESTAMP);
  if (!/^\d{1,15}$/.test(value)) return fail(VerifyFailure.MALFORMED_TIMESTAMP);
  const seconds = Number(value);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(input.nowSeconds - seconds) > tolerance) {
    return fail(VerifyFailure.TIMESTAMP_OUT_OF_TOLERANCE);
  }
  return seconds;
};

/** True when any expected MAC equals any received one; every pair is compared, to keep timing flat. */
const anyMatch = (expected: readonly Buffer[], received: readonly Buffer[]): boolean => {
  let matched = false;
  for (const mac of expected) {
    for (const signature of received) {
      if (signature.length === mac.length && timingSafeEqual(mac, signature)) matched = true;
    }
  }
  return matched;
};

/** The unsigned copies of the signed identity agree with it (absent copies are fine). */
const copiesAgree = (headers: IncomingHeaders, eventId: string, replay: number): boolean => {
  const replayHeader = headerValue(headers, SIGNATURE_HEADERS.REPLAY);
  return (
    [SIGNATURE_HEADERS.IDEMPOTENCY_KEY, SIGNATURE_HEADERS.EVENT_ID].every((name) => {
      const value = headerValue(headers, name);
      return value === undefined || value === eventId;
    }) &&
    (replayHeader === undefined || (replay > 0 && replayHeader === String(replay)))
  );
};

const verifyStandard = (input: VerifyInput, secrets: readonly string[]): VerifyResult => {
  const keys: Buffer[] = [];
  for (const secret of secrets.filter(isStandardKeyText)) {
    const key = decodeStandardKey(secret, "secret");
    if (typeof key === "string") return fail(VerifyFailure.MALFORMED_SECRET);
    keys.push(key);
  }
  if (keys.length === 0) return fail(VerifyFailure.NO_WHSEC_SECRET);
  const webhookId = headerValue(input.headers, SIGNATURE_HEADERS.WEBHOOK_ID);
  if (webhookId === undefined || webhookId === "") return fail(VerifyFailure.MISSING_WEBHOOK_ID);
  const parts = parseWebhookId(webhookId);
  if (parts === undefined) return fail(VerifyFailure.MALFORMED_WEBHOOK_ID);
  const timestamp = checkedTimestamp(
    headerValue(input.headers, SIGNATURE_HEADERS.WEBHOOK_TIMESTAMP),
    input,
  );
  if (typeof timestamp !== "number") return timestamp;
  const received = (headerValue(input.headers, SIGNATURE_HEADERS.WEBHOOK_SIGNATURE) ?? "")
    .split(" ")
    .filter((entry) => entry.startsWith(`${SIGNATURE_SCHEME},`))
    .map((entry) => Buffer.from(entry.slice(SIGNATURE_SCHEME.length + 1), "base64"));
  if (received.length === 0) return fail(VerifyFailure.MISSING_SIGNATURE);
  const expected = keys.map((key) => deliveryMac(key, webhookId, timestamp, input.body));
  if (!anyMatch(expected, received)) return fail(VerifyFailure.SIGNATURE_MISMATCH);
  if (!copiesAgree(input.headers, parts.eventId, parts.replay)) {
    return fail(VerifyFailure.HEADER_MISMATCH);
  }
  return { ok: true, scheme: "standard-webhooks", webhookId, ...parts };
};

const verifyLegacy = (input: VerifyInput, secrets: readonly string[]): VerifyResult => {
  const eventId = headerValue(input.headers, SIGNATURE_HEADERS.EVENT_ID);
  if (eventId === undefined || eventId === "") return fail(VerifyFailure.MISSING_EVENT_ID);
  const timestamp = checkedTimestamp(
    headerValue(input.headers, SIGNATURE_HEADERS.TIMESTAMP),
    input,
  );
  if (typeof timestamp !== "number") return timestamp;
  const received = (headerValue(input.headers, SIGNATURE_HEADERS.SIGNATURE) ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${SIGNATURE_SCHEME}=`))
    .map((part) => part.slice(SIGNATURE_SCHEME.length + 1))
    .filter((hex) => /^[0-9a-f]{64}$/i.test(hex))
    .map((hex) => Buffer.from(hex, "hex"));
  if (received.length === 0) return fail(VerifyFailure.MISSING_SIGNATURE);
  const expected = secrets.map((secret) => deliveryMac(secret, eventId, timestamp, input.body));
  if (!anyMatch(expected, received)) return fail(VerifyFailure.SIGNATURE_MISMATCH);
  if (headerValue(input.headers, SIGNATURE_HEADERS.REPLAY) !== undefined) {
    return fail(VerifyFailure.UNSIGNED_REPLAY);
  }
  if (!copiesAgree(input.headers, eventId, 0)) return fail(VerifyFailure.HEADER_MISMATCH);
  return { ok: true, scheme: "legacy", webhookId: webhookIdOf({ eventId }), eventId, replay: 0 };
};

/**
 * Verifies a signed delivery, for receivers: the Standard Webhooks signature (several `whsec_`
 * keys may be trusted at once while they rotate), or, when asked, the legacy one alone.
 * Comparison is constant-time. On success it says what the signature vouches for: deduplicate on
 * `webhookId` (or on `eventId`, to ignore replays too), never on an unsigned header.
 */
export const verifyDelivery = (input: VerifyInput): VerifyResult => {
  const secrets = (typeof input.secret === "string" ? [input.secret] : input.secret).filter(
    (secret) => secret !== "",
  );
  if (secrets.length === 0) return fail(VerifyFailure.NO_SECRET);
  const standard = [
    SIGNATURE_HEADERS.WEBHOOK_ID,
    SIGNATURE_HEADERS.WEBHOOK_TIMESTAMP,
    SIGNATURE_HEADERS.WEBHOOK_SIGNATURE,
  ].some((name) => headerValue(input.headers, name) !== undefined);
  const legacyAccepted = input.acceptLegacySignature === true;
  // A receiver with only the legacy key, on a deployment sending both, still verifies the old way.
  const hasWhsec = secrets.some(isStandardKeyText);
  if (standard && (hasWhsec || !legacyAccepted)) return verifyStandard(input, secrets);
  if (headerValue(input.headers, SIGNATURE_HEADERS.SIGNATURE) === undefined) {
    return fail(VerifyFailure.MISSING_SIGNATURE);
  }
  if (!legacyAccepted) return fail(VerifyFailure.LEGACY_SIGNATURE_REFUSED);
  return verifyLegacy(input, secrets);
};
