import type {
  RecordPendingDeadLetterRequest,
  RecordResultOutcome,
  RecordResultRequest,
} from "../../core/ports.js";
import { updateRecord } from "./conditional-writes.js";
import { holdingTheLease } from "./conditions.js";
import type { ExpressionPart } from "./expression-part.js";
import type { StoreContext } from "./store-context.js";
import { pendingDeadLetterUpdate, resultUpdate } from "./updates.js";

/** An update only the attempt holding the lease may make; anyone else has lost it. */
const updateUnderLease = async (
  context: StoreContext,
  operation: string,
  request: { readonly eventId: string; readonly worker: string; readonly generation: number },
  update: ExpressionPart,
): Promise<RecordResultOutcome> => {
  const answer = await updateRecord(context, operation, {
    eventId: request.eventId,
    update,
    condition: holdingTheLease(request),
  });
  return answer.kind === "written" ? { kind: "recorded" } : { kind: "lease_lost" };
};

/** Ends an attempt: its outcome, the event's next status, the lease given up. */
export const recordResult = (
  context: StoreContext,
  request: RecordResultRequest,
): Promise<RecordResultOutcome> =>
  updateUnderLease(context, "recordResult", request, resultUpdate(request));

/** Notes a dead-letter decision on the leased record, before its copy is sent. */
export const recordPendingDeadLetter = (
  context: StoreContext,
  request: RecordPendingDeadLetterRequest,
): Promise<RecordResultOutcome> =>
  updateUnderLease(context, "recordPendingDeadLetter", request, pendingDeadLetterUpdate(request));
