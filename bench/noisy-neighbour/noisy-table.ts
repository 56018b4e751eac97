import Table from "cli-table3";
import type {
  NoisyContenderFigures,
  NoisyNeighbourResult,
  ScenarioFigures,
} from "./noisy-neighbour.js";

type Cell = number | string | boolean | null | undefined;

/** The scenario as text: one column per contender and scenario. */
export const noisyNeighbourTable = (result: NoisyNeighbourResult): string => {
  const { settings } = result;
  const names = Object.keys(result.contenders);
  const scenarios = ["outage", "recoveryMidRun"] as const;
  const columns = names.flatMap((name) => scenarios.map((scenario) => ({ name, scenario })));
  const table = new Table({ head: ["figure", ...columns.map((c) => `${c.name}\n${c.scenario}`)] });
  const row = (label: string, read: (f: NoisyContenderFigures, s: ScenarioFigures) => Cell) => {
    table.push([
      label,
      ...columns.map(({ name, scenario }) => {
        const figures = result.contenders[name];
        const value = figures === undefined ? undefined : read(figures, figures[scenario]);
        return value === null || value === undefined ? "–" : String(value);
      }),
    ]);
  };
  row("healthy p50 ms (all-healthy)", (f, s) => `${s.healthy.p50Ms} (${f.allHealthy.p50Ms})`);
  row("healthy p99 ms (all-healthy)", (f, s) => `${s.healthy.p99Ms} (${f.allHealthy.p99Ms})`);
  row("healthy p50 ÷ all-healthy", (_, s) => s.vsAllHealthy.p50);
  row("healthy p99 ÷ all-healthy", (_, s) => s.vsAllHealthy.p99);
  row("  per round", (_, s) => s.p99RatioPerRound.map((r) => r ?? "–").join(" "));
  row("healthy events/s ÷ all-healthy", (_, s) => s.vsAllHealthy.eventsPerSecond);
  row("down: calls/min while down", (_, s) => s.down?.callsPerMinuteWhileDown);
  row("down: calls while down", (_, s) => s.down?.callsWhileDown);
  row("down: attempts charged/event", (_, s) => s.down?.attemptsChargedPerEvent);
  row("down: sent before recovery", (_, s) => s.down?.eventsBeforeRecovery);
  row("  delivered after recovery, no redrive", (_, s) => s.down?.deliveredAfterRecovery);
  row("down: undelivered", (_, s) => s.down?.undelivered);
  row("down: ms from recovery to last delivery", (_, s) => s.down?.drainMs);
  row("down: peak calls/s after recovery", (_, s) => s.down?.peakCallsPerSecondAfterRecovery);
  row("slow: delivered", (_, s) => s.slowDelivered);
  row("AWS requests/event", (_, s) => s.awsRequestsPerEvent);
  row("failed batches", (_, s) => s.failedBatches);
  const { outage, recoveryMidRun } = settings.outages;
  const seconds = (ms: number) => `${ms / 1000} s`;
  return [
    `Noisy neighbour: ${settings.rounds} round(s) of ${settings.events} events at ${settings.submitRate}/s over 10 targets (1 down, 1 slow at ${seconds(settings.slowMs)}, 8 healthy), concurrency ${settings.concurrency} for every contender; retries ${settings.retry.maxAttempts} × ${settings.retry.baseDelaySeconds} s apart, ${seconds(settings.retry.timeoutMs)} call timeout`,
    `outage: refused ${seconds(outage.refusedMs)}, then hanging ${seconds(outage.hangingMs)}; recoveryMidRun: refused ${seconds(recoveryMidRun.refusedMs)}, then hanging ${seconds(recoveryMidRun.hangingMs)}`,
    `breakers: ${JSON.stringify(settings.breaker)}`,
    table.toString(),
    `healthy p99 with breakers ≤ ${result.breakersWithinP99Limit.limit} × all-healthy: outage ${result.breakersWithinP99Limit.outage}, recoveryMidRun ${result.breakersWithinP99Limit.recoveryMidRun}`,
  ].join("\n");
};
