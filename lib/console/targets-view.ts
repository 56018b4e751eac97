import { type TargetActivity, targetActivity } from "../core/target-activity.js";
import { type TargetReport, targetReports } from "../core/target-report.js";
import type { ConsoleDeps } from "./console-deps.js";

/** The minutes the targets page charts. */
const ACTIVITY_MINUTES = 60;
/**
 * The most event records the targets page's charts read: a bounded, eventually consistent
 * scan (about one read unit per eight 1 KB records), never the whole table. See
 * docs/design-notes.md, "Pictures of a target".
 */
const ACTIVITY_RECORDS_READ = 2_000;

/** What the charts were drawn from: the bound of the read, said on the page. */
export interface ActivitySample {
  readonly targets: readonly TargetActivity[];
  readonly minutes: number;
  /** The most records the read looked at. */
  readonly maxRecordsRead: number;
  /** True when the table holds more than were read: the charts may miss events. */
  readonly cutShort: boolean;
}

/**
 * Seconds between refreshes of the charts: they count per minute, and each refresh reads up to
 * {@link ACTIVITY_RECORDS_READ} records, so they refresh far less often than the breaker table.
 */
export const ACTIVITY_REFRESH_SECONDS = 60;

/** The targets' breaker reports, read at the console's clock: one small query. */
export interface TargetReportsView {
  readonly reports: readonly TargetReport[];
  readonly nowMs: number;
  readonly breakersOn: boolean;
}

type TargetsDeps = Pick<ConsoleDeps, "targetState" | "store" | "clock" | "breakers">;

/** The breaker table's reports: the part of the page refreshed at the console's pace. */
export const readTargetReports = async (
  deps: TargetsDeps,
  limit: number,
): Promise<TargetReportsView> => {
  const listed = await deps.targetState.list(limit);
  const nowMs = deps.clock();
  return {
    reports: targetReports(listed, nowMs, deps.breakers),
    nowMs,
    breakersOn: deps.breakers !== undefined,
  };
};

/** The charts' sample: the last {@link ACTIVITY_MINUTES} of the most recent records. */
export const readTargetActivity = async (
  deps: TargetsDeps,
  limit: number,
): Promise<ActivitySample> => {
  const recent = await deps.store.listRecent({
    limit: ACTIVITY_RECORDS_READ,
    maxItemsRead: ACTIVITY_RECORDS_READ,
  });
  const targets = targetActivity(recent.records, {
    nowMs: deps.clock(),
    minutes: ACTIVITY_MINUTES,
  });
  return {
    targets: targets.slice(0, limit),
    minutes: ACTIVITY_MINUTES,
    maxRecordsRead: ACTIVITY_RECORDS_READ,
    cutShort: recent.cutShort,
  };
};
