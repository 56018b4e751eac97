import type { ConsumedCapacity, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DYNAMO_READ_COMMANDS, DYNAMO_WRITE_COMMANDS } from "./request-counter.js";

/** Capacity units DynamoDB reported as consumed, table and indexes together. */
export interface CapacityTotals {
  readonly writeUnits: number;
  readonly readUnits: number;
  /** Of the write units, those spent keeping global secondary indexes up to date. */
  readonly indexWriteUnits: number;
}

export interface CapacityCounter {
  /** Asks every item call of `client` to report its consumed capacity, and adds it up. */
  attach(client: DynamoDBClient): void;
  snapshot(): CapacityTotals;
  reset(): void;
}

const sum = (values: readonly (number | undefined)[]): number =>
  values.reduce<number>((total, value) => total + (value ?? 0), 0);

const unitsOf = (capacity: ConsumedCapacity): { total: number; indexes: number } => ({
  total: capacity.CapacityUnits ?? 0,
  indexes: sum(
    Object.values(capacity.GlobalSecondaryIndexes ?? {}).map((index) => index.CapacityUnits),
  ),
});

/**
 * Counts the request units DynamoDB bills for, which is what a request count misses: an item
 * over 1 KB costs a unit per KB, and a write that changes an index key also writes the index
 * (a delete and a put). DynamoDB Local computes these figures as DynamoDB does. A write refused
 * by its condition reports nothing here, although AWS still bills it one unit.
 */
export const createCapacityCounter = (name = "bench-capacity-counter"): CapacityCounter => {
  let totals = { writeUnits: 0, readUnits: 0, indexWriteUnits: 0 };
  return {
    attach: (client) => {
      client.middlewareStack.add(
        (next, context) => async (args) => {
          const command = (context.commandName ?? "").replace(/Command$/, "");
          const isWrite = DYNAMO_WRITE_COMMANDS.has(command);
          if (!isWrite && !DYNAMO_READ_COMMANDS.has(command)) return next(args);
          const input = args.input as Record<string, unknown>;
          const result = await next({
            ...args,
            input: { ...input, ReturnConsumedCapacity: "INDEXES" },
          });
          const reported = (
            result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }
          ).ConsumedCapacity;
          const list =
            reported === undefined ? [] : Array.isArray(reported) ? reported : [reported];
          for (const capacity of list) {
            const { total, indexes } = unitsOf(capacity);
            if (isWrite) {
              totals.writeUnits += total;
              totals.indexWriteUnits += indexes;
            } else {
              totals.readUnits += total;
            }
          }
          return result;
        },
        { step: "initialize", name },
      );
    },
    snapshot: () => ({ ...totals }),
    reset: () => {
      totals = { writeUnits: 0, readUnits: 0, indexWriteUnits: 0 };
    },
  };
};
