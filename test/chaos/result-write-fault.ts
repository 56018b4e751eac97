import { EventStatus } from "../../lib/core/status.js";

/*
 * Recognises, among the SDK calls a chaos worker makes, the one write a random fault rate reaches
 * too rarely to matter: the result write after an event's first retry was sent (its record going
 * from generation 0 to 1 as retry_scheduled). Failing it leaves the retry's copy ahead of a record
 * still in flight; under the deployed ratios that once parked the copy in the dead-letter queue.
 */

/** A DynamoDB attribute value as the low-level client's input carries it (marshalled). */
type AttributeValue = { readonly S?: string; readonly N?: string };

interface UpdateItemInput {
  readonly Key?: Record<string, AttributeValue>;
  readonly ExpressionAttributeValues?: Record<string, AttributeValue>;
}

/**
 * The event id, when `commandName` and `input` are the store's result write scheduling an event's
 * first retry (lib/adapters/dynamo-event-store.ts: `:status` retry_scheduled, `:newGeneration`
 * 1); undefined for every other call.
 */
export const firstRetryResultWriteOf = (
  commandName: string | undefined,
  input: unknown,
): string | undefined => {
  if (commandName !== "UpdateItemCommand" || input === null || typeof input !== "object")
    return undefined;
  const { Key, ExpressionAttributeValues: values } = input as UpdateItemInput;
  if (values?.[":status"]?.S !== EventStatus.RETRY_SCHEDULED) return undefined;
  if (values[":newGeneration"]?.N !== "1") return undefined;
  return Key?.eventId?.S;
};
