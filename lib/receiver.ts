/**
 * What a receiver of Ricochet deliveries imports to check that a request really came from its
 * Ricochet deployment: `verifyDelivery` over the raw body and the request's headers.
 *
 * ```ts
 * import { verifyDelivery } from "ricochet/receiver";
 * const check = verifyDelivery({
 *   secret: [currentKey, previousKey], // both, while the key rotates
 *   headers: req.headers,
 *   body: rawBody, // the bytes received, not re-serialised JSON
 *   nowSeconds: Math.floor(Date.now() / 1000),
 * });
 * if (!check.ok) return reply(401, check.reason);
 * ```
 *
 * Deliveries are at least once: deduplicate on the `Idempotency-Key` header (the event id).
 */
export {
  DEFAULT_TOLERANCE_SECONDS,
  type IncomingHeaders,
  SIGNATURE_HEADERS,
  VerifyFailure,
  type VerifyResult,
  verifyDelivery,
} from "./core/signing.js";
