import type { ClaimRequest } from "../../core/ports.js";
import { isoOf } from "../../core/time-format.js";
import type { ExpressionPart } from "./expression-part.js";

/**
 * The fields the first write of an event's record sets and every later write keeps
 * (`if_not_exists`), as an update-expression part and its values: a claim and a scheduling write
 * may each be that first write, and must create the same record.
 */
export const firstSightFields = (
  request: Pick<
    ClaimRequest,
    "attemptBudget" | "targetSummary" | "envelopeDigest" | "targetGroup" | "policyAdjustments"
  >,
  nowMs: number,
): ExpressionPart => {
  const adjustments = request.policyAdjustments ?? [];
  // Kept only by the write that creates the record; an empty list is never stored.
  const keepAdjustments = adjustments.length > 0;
  const hasGroup = request.targetGroup !== undefined;
  return {
    expression:
      "attemptBudget = if_not_exists(attemptBudget, :budget), " +
      "createdAt = if_not_exists(createdAt, :now), " +
      "history = if_not_exists(history, :empty), redrives = if_not_exists(redrives, :empty), " +
      "targetSummary = if_not_exists(targetSummary, :summary), " +
      "envelopeDigest = if_not_exists(envelopeDigest, :digest)" +
      (keepAdjustments
        ? ", policyAdjustments = if_not_exists(policyAdjustments, :adjustments)"
        : "") +
      (hasGroup ? ", targetGroup = if_not_exists(targetGroup, :group)" : ""),
    values: {
      ":budget": request.attemptBudget,
      ":now": isoOf(nowMs),
      ":empty": [],
      ":summary": request.targetSummary,
      ":digest": request.envelopeDigest,
      ...(keepAdjustments ? { ":adjustments": adjustments } : {}),
      ...(hasGroup ? { ":group": request.targetGroup } : {}),
    },
  };
};
