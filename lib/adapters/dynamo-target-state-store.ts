import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { TargetStateStore } from "../core/ports.js";
import { createStoreContext } from "./dynamo-event-store/store-context.js";
import { replaceBreaker } from "./dynamo-target-state-store/breaker-replace.js";
import { addDeferrals } from "./dynamo-target-state-store/deferral-count.js";
import { countFailure } from "./dynamo-target-state-store/failure-count.js";
import { writeLearnedLimit } from "./dynamo-target-state-store/learned-limit-writes.js";
import { getBreaker, listTargets } from "./dynamo-target-state-store/reads.js";

export { TARGET_ITEM_PREFIX } from "./dynamo-target-state-store/item.js";

export interface DynamoTargetStateStoreOptions {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
}

/**
 * The targets' breakers on DynamoDB, one item per target in the event table. Counting a failure
 * is one `UpdateItem` (two when it opens a new window); a state change is one conditional
 * `UpdateItem` guarded by the item's version.
 *
 * Each operation is a function over the store's context in ./dynamo-target-state-store/, laid
 * out as ./dynamo-event-store/ is; the item's shape is ./dynamo-target-state-store/item.ts.
 */
export const createDynamoTargetStateStore = ({
  doc,
  tableName,
}: DynamoTargetStateStoreOptions): TargetStateStore => {
  const context = createStoreContext(doc, tableName);
  return {
    countFailure: (request) => countFailure(context, request),
    replace: (request) => replaceBreaker(context, request),
    addDeferrals: (key, count, nowMs) => addDeferrals(context, key, count, nowMs),
    get: (key) => getBreaker(context, key),
    list: (limit) => listTargets(context, limit),
    writeLearnedLimit: (write) => writeLearnedLimit(context, write),
  };
};
