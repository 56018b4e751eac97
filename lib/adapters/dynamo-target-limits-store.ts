import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { TargetLimitsStore } from "../core/ports.js";
import { createStoreContext } from "./dynamo-event-store/store-context.js";
import { countCall } from "./dynamo-target-limits-store/rate-count.js";
import { releaseSlot, takeSlot } from "./dynamo-target-limits-store/slots.js";

export interface DynamoTargetLimitsStoreOptions {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
}

/**
 * The targets' limits on DynamoDB. Taking a slot is one conditional `PutItem`, giving it back one
 * conditional `DeleteItem`; counting a call is one `UpdateItem` (two or three when it starts a
 * new window). A failed condition costs a write too, which is why a call tries few slots.
 *
 * Each operation is a function over the store's context in ./dynamo-target-limits-store/, laid
 * out as ./dynamo-event-store/ is; the items' keys are ./dynamo-target-limits-store/item.ts.
 */
export const createDynamoTargetLimitsStore = ({
  doc,
  tableName,
}: DynamoTargetLimitsStoreOptions): TargetLimitsStore => {
  const context = createStoreContext(doc, tableName);
  return {
    takeSlot: (request) => takeSlot(context, request),
    releaseSlot: (key, slot, holder) => releaseSlot(context, key, slot, holder),
    countCall: (key, windowStartMs, nowMs, calls = 1) =>
      countCall(context, { key, windowStartMs, nowMs, calls }),
  };
};
