/*
 * The Standard Webhooks `webhook-id` of a Ricochet delivery: the event id, with every "." written
 * "%2E", and `~replay-<n>` after it on the calls of the n-th replay. The id is what a receiver
 * deduplicates on and it is inside the MAC, so it has to say everything that makes a call a new
 * message: retries and redrives of one event share it (the event id is stable, guarantee 3),
 * while a replay, an operator's deliberate resend, gets its own, signed.
 *
 * It never contains a ".", so the signed content `<webhook-id>.<timestamp>.<body>` splits one way
 * only: the first "." ends the id and the second the timestamp (digits). With the event id
 * itself there, a signature for id `V.<t>` and body `5` was also one for id `V`, body `<t>.5`.
 * "%" and "~" never occur in an event id (EVENT_ID_PATTERN), which makes the mapping one to one.
 */

const REPLAY_SUFFIX = "~replay-";

/** An event id and replay number, as a `webhook-id` carries them. */
export interface WebhookIdParts {
  readonly eventId: string;
  /** 0 before any replay; n on the calls of the n-th. */
  readonly replay: number;
}

/** The `webhook-id` of a call of `eventId`; `replay` 0 or absent for calls before any replay. */
export const webhookIdOf = ({
  eventId,
  replay,
}: {
  readonly eventId: string;
  readonly replay?: number | undefined;
}): string =>
  `${eventId.replaceAll(".", "%2E")}${replay === undefined || replay === 0 ? "" : `${REPLAY_SUFFIX}${replay}`}`;

const WEBHOOK_ID = /^([^.~%]|%2E)+(~replay-[1-9][0-9]{0,8})?$/;

/**
 * Reads a `webhook-id` written by {@link webhookIdOf}, or undefined for anything else (so a
 * receiver refuses an id Ricochet would never send, instead of guessing at it).
 */
export const parseWebhookId = (webhookId: string): WebhookIdParts | undefined => {
  if (!WEBHOOK_ID.test(webhookId)) return undefined;
  const cut = webhookId.indexOf(REPLAY_SUFFIX);
  const encoded = cut === -1 ? webhookId : webhookId.slice(0, cut);
  const replay = cut === -1 ? 0 : Number(webhookId.slice(cut + REPLAY_SUFFIX.length));
  return { eventId: encoded.replaceAll("%2E", "."), replay };
};
