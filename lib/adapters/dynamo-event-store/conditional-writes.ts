import { conditionFailure, isConditionFailure } from "../dynamo-errors.js";
import { RECORD_ABSENT } from "./conditions.js";
import type { ExpressionPart } from "./expression-part.js";
import { type StoreContext, storeFailure } from "./store-context.js";

/** A record's item, as the document client returns it. */
type Item = Record<string, unknown>;

/** A write whose condition failed: `item` is the record that refused it, when asked for and present. */
export interface RefusedWrite {
  readonly kind: "refused";
  readonly item: Item | undefined;
  /** DynamoDB's error, kept for a caller that cannot do without the item. */
  readonly error: unknown;
}

/** What a conditional write came to: done (with the old item, when asked), or refused. */
export type ConditionalAnswer =
  | { readonly kind: "written"; readonly old: Item | undefined }
  | RefusedWrite;

/** One update of one record, under its condition. */
export interface ConditionalUpdate {
  readonly eventId: string;
  readonly update: ExpressionPart;
  readonly condition: ExpressionPart;
  /** Return the item as it was before the update. */
  readonly returnOld?: boolean;
  /** Return the item that refused the condition. */
  readonly returnRefusing?: boolean;
}

const refusedOrThrow = (
  context: StoreContext,
  error: unknown,
  operation: string,
): ConditionalAnswer => {
  if (!isConditionFailure(error)) return storeFailure(context, error, operation);
  return { kind: "refused", item: conditionFailure(error).item, error };
};

/** One conditional UpdateItem of a record; any failure but a refused condition throws. */
export const updateRecord = async (
  context: StoreContext,
  operation: string,
  { eventId, update, condition, returnOld = false, returnRefusing = false }: ConditionalUpdate,
): Promise<ConditionalAnswer> => {
  const names = { ...update.names, ...condition.names };
  try {
    const result = await context.doc.send(
      new context.sdk.UpdateCommand({
        TableName: context.tableName,
        Key: { eventId },
        UpdateExpression: update.expression,
        ConditionExpression: condition.expression,
        ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: { ...update.values, ...condition.values },
        ...(returnOld ? { ReturnValues: "ALL_OLD" } : {}),
        ...(returnRefusing ? { ReturnValuesOnConditionCheckFailure: "ALL_OLD" } : {}),
      }),
    );
    return { kind: "written", old: result.Attributes };
  } catch (error) {
    return refusedOrThrow(context, error, operation);
  }
};

/** One PutItem of a record that does not exist yet; any failure but an existing record throws. */
export const putNewRecord = async (
  context: StoreContext,
  operation: string,
  item: Item,
  { returnRefusing = false }: { readonly returnRefusing?: boolean } = {},
): Promise<ConditionalAnswer> => {
  try {
    await context.doc.send(
      new context.sdk.PutCommand({
        TableName: context.tableName,
        Item: item,
        ConditionExpression: RECORD_ABSENT,
        ...(returnRefusing ? { ReturnValuesOnConditionCheckFailure: "ALL_OLD" } : {}),
      }),
    );
    return { kind: "written", old: undefined };
  } catch (error) {
    return refusedOrThrow(context, error, operation);
  }
};
