import type { AttributeValue, ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { errorWithName, ResourceNotFoundError, StoreUnavailableError } from "../core/errors.js";
import { dynamoDbSdk, dynamoDbUtilSdk } from "./aws-sdk-modules.js";

/**
 * The one place DynamoDB's errors become ours. A failed condition is not an error at all: it
 * comes back as the item that made it fail (or `undefined` when there was none), for the store
 * to turn into a domain outcome.
 */
export type ConditionFailure = {
  readonly conditionFailed: true;
  readonly item: Record<string, unknown> | undefined;
};

export const isConditionFailure = (error: unknown): error is ConditionalCheckFailedException =>
  error instanceof dynamoDbSdk().ConditionalCheckFailedException ||
  (error instanceof Error && error.name === "ConditionalCheckFailedException");

export const conditionFailure = (error: ConditionalCheckFailedException): ConditionFailure => {
  const raw = (error as { Item?: Record<string, AttributeValue> }).Item;
  return {
    conditionFailed: true,
    item: raw === undefined ? undefined : dynamoDbUtilSdk().unmarshall(raw),
  };
};

/** Translates any other DynamoDB failure, keeping the original as `cause`. */
export const translateDynamoError = (
  error: unknown,
  operation: string,
  tableName: string,
): Error => {
  if (
    error instanceof dynamoDbSdk().ResourceNotFoundException ||
    (error instanceof Error && error.name === "ResourceNotFoundException")
  ) {
    return new ResourceNotFoundError(`DynamoDB table ${tableName} not found`, {
      cause: error,
      context: { operation, tableName },
    });
  }
  const detail = errorWithName(error);
  return new StoreUnavailableError(`DynamoDB ${operation} on ${tableName} failed: ${detail}`, {
    cause: error,
    context: { operation, tableName },
  });
};
