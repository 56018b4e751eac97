import { EventStatus } from "../../lib/core/status.js";

/*
 * Recognises, among the SDK calls a chaos worker makes, the writes a random fault rate reaches
 * too rarely to matter: the result write after something outliving the attempt was sent.
 * - After an event's first retry (its record going from generation 0 to 1 as retry_scheduled):
 *   failing it leaves the retry's copy ahead of a record still in flight; under the deployed
 *   ratios that once parked the copy in the dead-letter queue.
 * - After a dead-letter copy (rejected or dead_lettered): failing it leaves the copy sent and the
 *   record in flight; the takeover once called again, and a receiver that then accepted left a
 *   delivered event with a copy in the dead-letter queue.
 */

/** A DynamoDB attribute value as the low-level client's input carries it (marshalled). */
type AttributeValue = { readonly S?: string; readonly N?: string };

interface UpdateItemInput {
  readonly Key?: Record<string, AttributeValue>;
  readonly ExpressionAttributeValues?: Record<string, AttributeValue>;
}

const AFTER_DEAD_LETTER_COPY: ReadonlySet<string> = new Set([
  EventStatus.REJECTED,
  EventStatus.DEAD_LETTERED,
]);

/**
 * The event id, when `commandName` and `input` are the store's result write scheduling an event's
 * first retry (`resultUpdate` in lib/adapters/dynamo-event-store/updates.ts: `:status`
 * retry_scheduled, `:newGeneration` 1) or ending it in the dead-letter queue (`:status` rejected or dead_lettered); undefined for
 * every other call.
 */
export const resultWriteAfterSendOf = (
  commandName: string | undefined,
  input: unknown,
): string | undefined => {
  if (commandName !== "UpdateItemCommand" || input === null || typeof input !== "object")
    return undefined;
  const { Key, ExpressionAttributeValues: values } = input as UpdateItemInput;
  const status = values?.[":status"]?.S;
  const firstRetry =
    status === EventStatus.RETRY_SCHEDULED && values?.[":newGeneration"]?.N === "1";
  const deadLettered = status !== undefined && AFTER_DEAD_LETTER_COPY.has(status);
  return firstRetry || deadLettered ? Key?.eventId?.S : undefined;
};
