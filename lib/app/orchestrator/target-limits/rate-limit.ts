import type { TargetLimitsStore } from "../../../core/ports.js";
import {
  askSize,
  bucketAt,
  grantKept,
  type RateBucket,
  tokenSpent,
} from "../../../core/rate-bucket.js";
import {
  rateGranted,
  rateVerdict,
  rateWindowOf,
  slotRetryAt,
} from "../../../core/target-limits.js";
import { type LimitAdmission, LimitKind, type LimitsEnvironment } from "./limit-admission.js";

/** The rate limit's store and this instance's share of each target's window. */
export interface RateLimitContext extends LimitsEnvironment {
  readonly store: Pick<TargetLimitsStore, "countCall">;
  readonly buckets: Map<string, RateBucket>;
}

/**
 * Undefined when a call to `key` fits its rate `limit` now, else the deferral. A call spends a
 * token this instance was granted; with none left, it asks the shared counter for a batch.
 */
export const overRate = async (
  context: RateLimitContext,
  key: string,
  limit: number,
): Promise<LimitAdmission | undefined> => {
  const { buckets, random } = context;
  const nowMs = context.clock();
  const bucket = bucketAt(buckets.get(key), nowMs);
  const spent = tokenSpent(bucket);
  buckets.set(key, spent ?? bucket);
  if (spent !== undefined) return undefined;
  const asked = askSize(bucket, limit);
  const counted = await context.store.countCall(key, rateWindowOf(nowMs), nowMs, asked);
  const granted = rateGranted(counted.count, asked, limit);
  const grant = { windowStartMs: counted.windowStartMs, granted, full: granted < asked };
  const kept = grantKept(buckets.get(key), grant);
  if (kept !== undefined) buckets.set(key, kept);
  if (granted > 0) return undefined;
  // The first of the asked calls' place in the count: the turned-away return in that order.
  const verdict = rateVerdict(counted.windowStartMs, counted.count - asked + 1, limit);
  const untilMs = verdict.verdict === "defer" ? verdict.untilMs : slotRetryAt(nowMs, random);
  return { verdict: "defer", untilMs, limit: LimitKind.RATE };
};
