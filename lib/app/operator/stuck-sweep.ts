import { MetricName } from "../../contract/metric-names.js";
import type { Log, Metrics } from "../../core/observability.js";
import type { EventStore } from "../../core/ports.js";
import type { EventRecord } from "../../core/record.js";

/** What a sweep for stuck events needs. */
export interface StuckSweepDeps {
  readonly store: Pick<EventStore, "listStuck">;
  readonly metrics: Metrics;
  readonly log: Log;
  readonly clock: () => number;
}

/** How a sweep judges: the margin past due, how far back it reads, how many it names. */
export interface StuckSweepSettings {
  readonly stuckAfterSeconds: number;
  readonly lookbackDays: number;
  readonly limit: number;
}

/** A sweep's finding: the stuck events named (at most `limit`) and whether more exist. */
export interface StuckSweepReport {
  readonly stuck: readonly EventRecord[];
  readonly cutShort: boolean;
}

/**
 * Finds the stuck events and counts them as {@link MetricName.STUCK_EVENTS}, zero included, for
 * the alarm; each one found is logged by id and status only (no payload, no target URL).
 */
export const sweepStuckEvents = async (
  deps: StuckSweepDeps,
  settings: StuckSweepSettings,
): Promise<StuckSweepReport> => {
  const { records, cutShort } = await deps.store.listStuck({
    cutoffMs: deps.clock() - settings.stuckAfterSeconds * 1000,
    lookbackDays: settings.lookbackDays,
    limit: settings.limit,
  });
  deps.metrics.count(MetricName.STUCK_EVENTS, records.length);
  for (const record of records) {
    deps.log.warn("stuck event: waiting past due with no message", {
      eventId: record.eventId,
      status: record.status,
      nextAttemptAt: record.nextAttemptAt,
    });
  }
  return { stuck: records, cutShort };
};
