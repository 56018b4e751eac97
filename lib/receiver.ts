/**
 * What a receiver of Ricochet deliveries imports to check that a request really came from its
 * Ricochet deployment: `verifyDelivery` over the raw body and the request's headers. Deliveries
 * are signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`, `webhook-signature`,
 * `whsec_` keys), so any Standard Webhooks library verifies them too.
 *
 * ```ts
 * import { verifyDelivery } from "ricochet/receiver";
 * const check = verifyDelivery({
 *   secret: [currentKey, previousKey], // whsec_… keys; both while the key rotates
 *   headers: req.headers,
 *   body: rawBody, // the bytes received, not re-serialised JSON
 *   nowSeconds: Math.floor(Date.now() / 1000),
 * });
 * if (!check.ok) return reply(401, check.reason);
 * if (await alreadyProcessed(check.webhookId)) return reply(200);
 * ```
 *
 * Deliveries are at least once: deduplicate on `check.webhookId` (signed; retries share it, a
 * replay has its own) or on `check.eventId` (signed too; also ignores replays), never on a header
 * read by itself.
 */
export {
  type IncomingHeaders,
  type VerifiedDelivery,
  VerifyFailure,
  type VerifyInput,
  type VerifyResult,
  verifyDelivery,
} from "./core/delivery-verification.js";
export { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADERS } from "./core/signing.js";
export { parseWebhookId, type WebhookIdParts, webhookIdOf } from "./core/webhook-id.js";
