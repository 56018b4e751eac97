import { targetActivity } from "../core/target-activity.js";
import { type TargetReport, targetReports } from "../core/target-report.js";
import type { ConsoleDeps } from "./console-deps.js";
import type { ActivitySample } from "./targets-page.js";

/** The minutes the targets page charts. */
export const ACTIVITY_MINUTES = 60;
/**
 * The most event records the targets page's charts read: a bounded, eventually consistent
 * scan (about one read unit per eight 1 KB records), never the whole table. See
 * docs/design-notes.md, "Pictures of a target".
 */
export const ACTIVITY_RECORDS_READ = 2_000;

/** What the targets page shows, read at the console's clock. */
export interface TargetsView {
  readonly reports: readonly TargetReport[];
  readonly nowMs: number;
  readonly breakersOn: boolean;
  readonly activity: ActivitySample;
}

/** The targets' breaker reports and their recent activity, read side by side. */
export const readTargetsView = async (
  deps: Pick<ConsoleDeps, "targetState" | "store" | "clock" | "breakers">,
  limit: number,
): Promise<TargetsView> => {
  const [listed, recent] = await Promise.all([
    deps.targetState.list(limit),
    deps.store.listRecent({ limit: ACTIVITY_RECORDS_READ, maxItemsRead: ACTIVITY_RECORDS_READ }),
  ]);
  const nowMs = deps.clock();
  const targets = targetActivity(recent.records, { nowMs, minutes: ACTIVITY_MINUTES });
  return {
    reports: targetReports(listed, nowMs, deps.breakers),
    nowMs,
    breakersOn: deps.breakers !== undefined,
    activity: {
      targets: targets.slice(0, limit),
      minutes: ACTIVITY_MINUTES,
      maxRecordsRead: ACTIVITY_RECORDS_READ,
      cutShort: recent.cutShort,
    },
  };
};
