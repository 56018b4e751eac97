import { CANCELLABLE_STATUSES } from "../../core/cancel-rule.js";
import type {
  CancelRecordRequest,
  OperatorWriteOutcome,
  RedriveRecordOutcome,
  RedriveRecordRequest,
  ReplayRecordRequest,
} from "../../core/ports.js";
import type { AuditEntry } from "../../core/record.js";
import { itemToRecord } from "../dynamo-record-item.js";
import { type ConditionalUpdate, updateRecord } from "./conditional-writes.js";
import {
  cancelCondition,
  RECORD_PRESENT,
  redriveCondition,
  replayCondition,
} from "./conditions.js";
import { get } from "./reads.js";
import type { StoreContext } from "./store-context.js";
import { auditUpdate, cancelUpdate, redriveUpdate, replayUpdate } from "./updates.js";

/** A conditional update that answers `conflict` with the record that refused it. */
const updateOrConflict = async (
  context: StoreContext,
  operation: string,
  write: ConditionalUpdate,
): Promise<OperatorWriteOutcome> => {
  const answer = await updateRecord(context, operation, { ...write, returnRefusing: true });
  if (answer.kind === "written") return { kind: "recorded" };
  return {
    kind: "conflict",
    record: answer.item === undefined ? undefined : itemToRecord(answer.item),
  };
};

/** Starts an event over at the next generation, unless it moved since the redrive read it. */
export const recordRedrive = (
  context: StoreContext,
  request: RedriveRecordRequest,
): Promise<RedriveRecordOutcome> =>
  updateOrConflict(context, "recordRedrive", {
    eventId: request.eventId,
    update: redriveUpdate(request),
    condition: redriveCondition(request),
  });

/** Marks a waiting event cancelled, unless it moved since the cancel read it. */
export const recordCancel = async (
  context: StoreContext,
  request: CancelRecordRequest,
): Promise<OperatorWriteOutcome> => {
  // An expected status that is not cancellable is refused here too, as the condition would.
  if (!CANCELLABLE_STATUSES.has(request.expectedStatus)) {
    return { kind: "conflict", record: await get(context, request.eventId) };
  }
  return updateOrConflict(context, "recordCancel", {
    eventId: request.eventId,
    update: cancelUpdate(request),
    condition: cancelCondition(request),
  });
};

/** Moves a delivered event back to pending at the next generation, for a replay. */
export const recordReplay = (
  context: StoreContext,
  request: ReplayRecordRequest,
): Promise<OperatorWriteOutcome> =>
  updateOrConflict(context, "recordReplay", {
    eventId: request.eventId,
    update: replayUpdate(request),
    condition: replayCondition(request),
  });

/** Appends an operator action to the record's audit trail, if the record still exists. */
export const appendAudit = async (
  context: StoreContext,
  eventId: string,
  entry: AuditEntry,
): Promise<void> => {
  await updateRecord(context, "appendAudit", {
    eventId,
    update: auditUpdate(entry),
    condition: RECORD_PRESENT,
  });
};
