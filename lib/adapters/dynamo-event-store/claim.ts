import { claimedRecord, explainRefusedClaim, mayClaim } from "../../core/claim.js";
import type { ClaimRequest, ClaimResult } from "../../core/ports.js";
import type { EventRecord } from "../../core/record.js";
import { EventStatus } from "../../core/status.js";
import { itemToRecord } from "../dynamo-record-item.js";
import { putNewRecord, type RefusedWrite, updateRecord } from "./conditional-writes.js";
import { claimCondition } from "./conditions.js";
import { type StoreContext, storeFailure } from "./store-context.js";
import { claimUpdate, storedCurrentAttempt } from "./updates.js";

/** A refused claim's record; without one to judge, the refusal is a store failure. */
const refusingRecord = (context: StoreContext, refused: RefusedWrite): EventRecord =>
  refused.item === undefined
    ? storeFailure(context, refused.error, "claim")
    : itemToRecord(refused.item);

/**
 * The first claim of an event (generation 0) creates its record with a conditional PutItem,
 * which DynamoDB applies faster than the update below (benchmarked on DynamoDB Local: 3.5 vs
 * 5.2 ms at 10 in flight). A record that exists already is returned for a verdict.
 */
const claimByCreating = async (
  context: StoreContext,
  request: ClaimRequest,
): Promise<ClaimResult | { readonly kind: "exists"; readonly record: EventRecord }> => {
  const record = claimedRecord(undefined, request);
  const answer = await putNewRecord(
    context,
    "claim",
    { ...record, currentAttempt: storedCurrentAttempt(request) },
    { returnRefusing: true },
  );
  if (answer.kind === "written") return { kind: "claimed", record, takeover: false };
  return { kind: "exists", record: refusingRecord(context, answer) };
};

/** Any other claim is one conditional UpdateItem, returning the record as it was claimed. */
const claimByUpdating = async (
  context: StoreContext,
  request: ClaimRequest,
): Promise<ClaimResult> => {
  const { generation, nowMs, envelopeDigest } = request;
  const answer = await updateRecord(context, "claim", {
    eventId: request.eventId,
    update: claimUpdate(request),
    condition: claimCondition(request),
    returnOld: true,
    returnRefusing: true,
  });
  if (answer.kind === "refused") {
    return explainRefusedClaim(refusingRecord(context, answer), generation, nowMs, envelopeDigest);
  }
  const old = answer.old === undefined ? undefined : itemToRecord(answer.old);
  return {
    kind: "claimed",
    record: claimedRecord(old, request),
    takeover: old?.status === EventStatus.IN_FLIGHT,
  };
};

/** Takes the lease on an event for one attempt, or says why it may not be taken. */
export const claim = async (context: StoreContext, request: ClaimRequest): Promise<ClaimResult> => {
  const { generation, nowMs, envelopeDigest } = request;
  if (generation === 0) {
    const created = await claimByCreating(context, request);
    if (created.kind !== "exists") return created;
    // Only a first attempt that died with its lease can be claimed again at generation 0;
    // that takeover (rare: a crash) costs the update below as a second write.
    if (!mayClaim(created.record, generation, nowMs, envelopeDigest)) {
      return explainRefusedClaim(created.record, generation, nowMs, envelopeDigest);
    }
  }
  return claimByUpdating(context, request);
};
