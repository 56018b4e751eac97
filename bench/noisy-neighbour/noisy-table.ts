import Table from "cli-table3";
import { mappingsText } from "../support/deployment.js";
import type { NoiseBand } from "../support/noise-band.js";
import type { PairedRatio } from "../support/round-statistics.js";
import type {
  NoisyContenderFigures,
  NoisyNeighbourResult,
  ScenarioFigures,
} from "./noisy-neighbour.js";
import type { ScenarioComparison, Versus } from "./noisy-report.js";

type Cell = number | string | boolean | null | undefined;

/** One scenario's figures, a column per contender, ready for any renderer. */
interface Section {
  readonly title: string;
  readonly head: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** The A/A band and the targets, below the table. */
  readonly notes: readonly string[];
}

const SCENARIOS = [
  { key: "outage", title: "Outage: the down target recovers after the last send" },
  {
    key: "recoveryMidRun",
    title: "Recovery mid-run: the down target recovers while events are sent",
  },
] as const;

const text = (value: Cell): string => (value === null || value === undefined ? "–" : String(value));
const ratioText = (ratio: PairedRatio | null): string | null =>
  ratio === null ? null : `${ratio.median} (${ratio.min}–${ratio.max})`;
const bandText = (band: NoiseBand | null): string =>
  band === null ? "– (no A/A ratio)" : `${band.low.toFixed(3)}–${band.high.toFixed(3)}`;

const sectionOf = (result: NoisyNeighbourResult, scenario: (typeof SCENARIOS)[number]): Section => {
  const names = Object.keys(result.contenders);
  const comparison: ScenarioComparison = result.comparison[scenario.key];
  const rows: string[][] = [];
  const row = (
    label: string,
    read: (f: NoisyContenderFigures, s: ScenarioFigures, versus: Versus | undefined) => Cell,
  ) => {
    rows.push([
      label,
      ...names.map((name) => {
        const figures = result.contenders[name];
        return figures === undefined
          ? "–"
          : text(read(figures, figures[scenario.key], comparison.versus[name]));
      }),
    ]);
  };
  const subject = result.subject;
  row("function concurrency (shared by its mappings)", (f) => f.setup.concurrency);
  row("  mappings: queue (batch, window s, visibility s)", (f) => mappingsText(f.setup.deployment));
  row("healthy p50 ms", (_, s) => s.healthy.p50Ms);
  row("healthy p99 ms", (_, s) => s.healthy.p99Ms);
  row("  per round", (_, s) => s.perRound.map((r) => text(r.healthyP99Ms)).join(" "));
  row("  all-healthy run's p99 ms", (f) => f.allHealthy.p99Ms);
  row(`  its p99 ÷ ${subject}'s, same round: median (min–max)`, (_, __, v) =>
    ratioText(v?.healthyP99 ?? null),
  );
  row(`  ${subject} against the A/A band`, (_, __, v) => v?.healthyP99Verdict);
  row("down: calls/min while down", (_, s) => s.down?.callsPerMinuteWhileDown);
  row("  per round", (_, s) => s.perRound.map((r) => text(r.downCallsPerMinute)).join(" "));
  row(`  ${subject}'s ÷ its, same round: median (min–max)`, (_, __, v) =>
    ratioText(v?.downCallsPerMinute ?? null),
  );
  row(`  ${subject} against the A/A band`, (_, __, v) => v?.downCallsVerdict);
  row("down: attempts charged/event", (_, s) => s.down?.attemptsChargedPerEvent);
  row("down: sent before recovery", (_, s) => s.down?.eventsBeforeRecovery);
  row("  delivered after recovery, no redrive", (_, s) => s.down?.deliveredAfterRecovery);
  row("down: undelivered", (_, s) => s.down?.undelivered);
  row("down: ms from recovery to last delivery", (_, s) => s.down?.drainMs);
  row("down: peak calls/s after recovery", (_, s) => s.down?.peakCallsPerSecondAfterRecovery);
  row("slow: delivered", (_, s) => s.slowDelivered);
  row("AWS requests/event", (_, s) => s.awsRequestsPerEvent);
  row("failed batches", (_, s) => s.failedBatches);
  const { noise, claims } = comparison;
  const pairs = noise.pairs
    .map(([twin, original], i) => {
      const p99 = ratioText(noise.healthyP99.ratios[i] ?? null) ?? "–";
      const calls = ratioText(noise.downCallsPerMinute.ratios[i] ?? null) ?? "–";
      return `${twin} ÷ ${original}: p99 ${p99}, calls/min ${calls}`;
    })
    .join("; ");
  return {
    title: scenario.title,
    head: ["figure", ...names],
    rows,
    notes: [
      `A/A (${pairs}); bands, the widest pair's: healthy p99 ${bandText(noise.healthyP99.band)}, down calls/min ${bandText(noise.downCallsPerMinute.band)}`,
      `${subject}: healthy p99 below every other contender's: ${text(claims.healthyP99Lowest)}; down calls/min below every other's: ${text(claims.downCallsPerMinuteLowest)}`,
    ],
  };
};

const preambleOf = (result: NoisyNeighbourResult): string[] => {
  const { settings } = result;
  const { outage, recoveryMidRun } = settings.outages;
  const seconds = (ms: number) => `${ms / 1000} s`;
  return [
    `Noisy neighbour: ${settings.rounds} round(s) of ${settings.events} events at ${settings.submitRate}/s over 10 targets (1 down, 1 slow at ${seconds(settings.slowMs)}, 8 healthy), function concurrency ${settings.concurrency} for every contender; retries ${settings.retry.maxAttempts} × ${settings.retry.baseDelaySeconds} s apart, ${seconds(settings.retry.timeoutMs)} call timeout; each run rotated one place, so every contender takes every place equally often`,
    `outage: refused ${seconds(outage.refusedMs)}, then hanging ${seconds(outage.hangingMs)}; recoveryMidRun: refused ${seconds(recoveryMidRun.refusedMs)}, then hanging ${seconds(recoveryMidRun.hangingMs)}`,
    `breakers (Ricochet's; opossum's the same where it has the setting): ${JSON.stringify(settings.breaker)}`,
  ];
};

/** The scenario as text: per scenario, one column per contender, then its A/A band and targets. */
export const noisyNeighbourTable = (result: NoisyNeighbourResult): string =>
  [
    ...preambleOf(result),
    ...SCENARIOS.flatMap((scenario) => {
      const section = sectionOf(result, scenario);
      const table = new Table({ head: [...section.head] });
      for (const row of section.rows) table.push([...row]);
      return ["", section.title, table.toString(), ...section.notes];
    }),
  ].join("\n");

/** A table cell in Markdown: pipes escaped, on one line, so a figure cannot break the table. */
const markdownCell = (value: string): string =>
  value.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");

/** The same figures as {@link noisyNeighbourTable}, as Markdown (for BENCHMARKS.md). */
export const noisyNeighbourMarkdown = (result: NoisyNeighbourResult): string =>
  [
    ...preambleOf(result).map((line) => `${markdownCell(line)}  `),
    ...SCENARIOS.flatMap((scenario) => {
      const section = sectionOf(result, scenario);
      const line = (cells: readonly string[]) => `| ${cells.map(markdownCell).join(" | ")} |`;
      return [
        "",
        `**${section.title}**`,
        "",
        line(section.head),
        line(section.head.map(() => "---")),
        ...section.rows.map(line),
        "",
        ...section.notes.map((note) => `${markdownCell(note)}  `),
      ];
    }),
  ].join("\n");
