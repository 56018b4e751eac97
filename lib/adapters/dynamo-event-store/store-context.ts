import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { dynamoDbDocumentSdk } from "../aws-sdk-modules.js";
import { translateDynamoError } from "../dynamo-errors.js";

/** What every operation of the event store works with: the client, the table and its commands. */
export interface StoreContext {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  /** The document client's command classes, loaded once when the store is created. */
  readonly sdk: ReturnType<typeof dynamoDbDocumentSdk>;
}

export const createStoreContext = (
  doc: DynamoDBDocumentClient,
  tableName: string,
): StoreContext => ({
  doc,
  tableName,
  sdk: dynamoDbDocumentSdk(),
});

/** Throws a DynamoDB failure other than a refused condition as the domain's error. */
export const storeFailure = (context: StoreContext, error: unknown, operation: string): never => {
  throw translateDynamoError(error, operation, context.tableName);
};
