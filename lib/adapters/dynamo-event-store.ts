import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { EventStore } from "../core/ports.js";
import { claim } from "./dynamo-event-store/claim.js";
import {
  recordConflict,
  recordDeferral,
  recordInvalid,
  recordScheduled,
} from "./dynamo-event-store/intake-writes.js";
import { recordPendingDeadLetter, recordResult } from "./dynamo-event-store/lease-writes.js";
import {
  appendAudit,
  recordCancel,
  recordRedrive,
  recordReplay,
} from "./dynamo-event-store/operator-writes.js";
import { get, listByStatus, listRecent } from "./dynamo-event-store/reads.js";
import { createStoreContext } from "./dynamo-event-store/store-context.js";
import { listStuck } from "./dynamo-event-store/stuck-reads.js";

export interface DynamoEventStoreOptions {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
}

/**
 * The attempt store on DynamoDB: one item per event. A claim is one conditional write (a PutItem
 * creating the record for an event's first attempt, an UpdateItem after that) and a result is one
 * conditional UpdateItem; neither reads first (an update returns the old item, and a refused
 * claim returns it through `ReturnValuesOnConditionCheckFailure`).
 *
 * Each operation is a function over the store's context in ./dynamo-event-store/, grouped by who
 * writes (intake, the attempt under its lease, an operator); their conditions and updates are
 * named in ./dynamo-event-store/conditions.ts and ./dynamo-event-store/updates.ts.
 */
export const createDynamoEventStore = ({ doc, tableName }: DynamoEventStoreOptions): EventStore => {
  const context = createStoreContext(doc, tableName);
  return {
    claim: (request) => claim(context, request),
    recordResult: (request) => recordResult(context, request),
    recordPendingDeadLetter: (request) => recordPendingDeadLetter(context, request),
    recordInvalid: (request) => recordInvalid(context, request),
    recordScheduled: (request) => recordScheduled(context, request),
    recordDeferral: (request) => recordDeferral(context, request),
    recordRedrive: (request) => recordRedrive(context, request),
    recordCancel: (request) => recordCancel(context, request),
    recordReplay: (request) => recordReplay(context, request),
    recordConflict: (request) => recordConflict(context, request),
    appendAudit: (eventId, entry) => appendAudit(context, eventId, entry),
    get: (eventId) => get(context, eventId),
    listByStatus: (request) => listByStatus(context, request),
    listRecent: (request) => listRecent(context, request),
    listStuck: (request) => listStuck(context, request),
  };
};
