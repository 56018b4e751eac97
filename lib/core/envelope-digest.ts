import { createHash } from "node:crypto";
import type { Envelope } from "./envelope.js";

/*
 * The identity of an envelope's content, so that a resubmission under the same event id can be
 * told apart from a duplicate. The digest is taken over a canonical form — keys sorted, numbers
 * as JavaScript reads them, the optional `version` left out — so that a producer that re-serialises
 * the same event (another key order, `1e3` for `1000`, other whitespace) is not flagged.
 */

const canonical = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
};

/** The first characters of a digest, enough to tell envelopes apart in a log line. */
export const shortDigest = (digest: string): string => digest.slice(0, 16);

/**
 * SHA-256 (hex) of the envelope's canonical form: equal for the same event however it was
 * serialised, different as soon as the target, payload, policy or deadline differ.
 */
export const envelopeDigest = (envelope: Envelope): string => {
  const { version: _version, ...content } = envelope;
  return createHash("sha256").update(canonical(content), "utf8").digest("hex");
};
