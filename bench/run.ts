/**
 * Benchmarks Ricochet against a Powertools batch consumer and a bare SQS consumer, side by side
 * on one local AWS (fauxqs + DynamoDB Local) and one local receiver with seeded 503s.
 *
 *   npm run bench                              # 1 000 events × 4 rounds (one per contender), a table
 *   npm run bench -- --json --events 100 --rounds 4
 *   npm run bench -- --rate 20        # submit 20 events/s instead of all at once
 *   npm run bench -- --latency 20-300 # the receiver answers each call after 20 to 300 ms
 *   npm run bench -- --cold-start --samples 9   # only the orchestrator bundle's initMs/firstBatchMs
 *   npm run bench -- --cold-start --tracing     # the same with tracing off and on, alternated
 *   npm run bench -- --scenario noisy-neighbour # only one bad target among ten (2 rounds, ~15 minutes)
 *   npm run bench -- --scenario noisy-neighbour --noisy-rounds 4   # steadier p99s (a multiple of 2)
 *   npm run bench -- --scenario retries         # only the healthy and flaky scenarios
 *   npm run bench -- --scenario rate-limited    # only a partner whose quota is halved mid-run
 *   npm run bench -- --scenario saturating      # only a partner that slows and sheds load past its capacity
 *   npm run bench -- --tracing                  # Ricochet tracing on vs off (and its A/A twin), same run
 *
 * With --json the last line printed is one JSON object. Progress goes to stderr.
 */
import { parseArgs } from "node:util";
import Table from "cli-table3";
import { startLocalAws } from "../lib/local/start-local-aws.js";
import { BENCH_OPTIONS } from "./bench-options.js";
import { measureBundle, measureTracingColdStart } from "./bundle-figures.js";
import { ricochet, ricochetAA, ricochetTraced } from "./contenders/ricochet.js";
import { type BenchResult, CONTENDERS, runBenchmark } from "./harness.js";
import { runNoisyNeighbour } from "./noisy-neighbour/noisy-neighbour.js";
import { noisyNeighbourTable } from "./noisy-neighbour/noisy-table.js";
import { runRateLimited } from "./rate-limited/rate-limited.js";
import { rateLimitedTable } from "./rate-limited/rate-table.js";
import { figureRows } from "./report/figure-rows.js";
import { runSaturating } from "./saturating/saturating.js";
import { saturatingTable } from "./saturating/saturating-table.js";
import { finished, startRunMetadata } from "./support/run-metadata.js";
import type { AnswerLatency } from "./support/seeded-receiver.js";

/** What `--scenario` selects; `all` (the default) runs every one, in this order. */
const SCENARIOS = ["all", "retries", "noisy-neighbour", "rate-limited", "saturating"] as const;
type Scenario = (typeof SCENARIOS)[number];

const scenarioOf = (value: string | undefined): Scenario => {
  const found = SCENARIOS.find((scenario) => scenario === (value ?? "all"));
  if (found === undefined) {
    throw new Error(`--scenario must be one of ${SCENARIOS.join(", ")}, got ${value}`);
  }
  return found;
};

/**
 * Events per contender and scenario. At 300 a healthy run lasted half a second and one slow
 * batch moved its rate by a fifth; 1 000 keep the flaky run's backlog (and so the scheduling
 * error it adds) under a second on this machine.
 */
const DEFAULT_EVENTS = 1_000;

const wholeNumber = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new Error(`--${name} must be a whole number of at least 1, got ${value}`);
  }
  return parsed;
};

const { values } = parseArgs({ options: BENCH_OPTIONS });

/** `--latency MIN-MAX` (ms, whole numbers, MIN ≤ MAX), or one number for a fixed answer time. */
const latencyOf = (value: string | undefined): AnswerLatency | undefined => {
  if (value === undefined) return undefined;
  const match = /^(\d+)(?:-(\d+))?$/.exec(value);
  const minMs = Number(match?.[1]);
  const maxMs = Number(match?.[2] ?? match?.[1]);
  if (match === null || maxMs < minMs || maxMs > 60_000) {
    throw new Error(`--latency must be MIN-MAX in ms (at most 60000), e.g. 20-300, got ${value}`);
  }
  return { minMs, maxMs };
};

type Figures = BenchResult["contenders"];

const tableOf = (figures: Figures, withDetails: boolean): string => {
  const table = new Table({ head: ["figure", ...Object.keys(figures)] });
  for (const row of figureRows(figures, withDetails)) table.push([row.label, ...row.cells]);
  return table.toString();
};

const printTables = (result: BenchResult): void => {
  console.log(
    `${result.events} events × ${result.rounds} rounds, function concurrency ${result.concurrency} for every contender; ratios ÷ ${result.baseline}, ${result.submitRate === 0 ? "all submitted at once" : `submitted at ${result.submitRate} events/s (rates are capped by it)`}; medians over rounds`,
  );
  const band = (b: BenchResult["noise"]["flakyBand"]) =>
    b === null ? "–" : `${b.low.toFixed(3)}–${b.high.toFixed(3)}`;
  console.log(
    `A/A (${result.noise.pair.join(" ÷ ")}): flaky band ${band(result.noise.flakyBand)}, healthy band ${band(result.noise.healthyBand)}`,
  );
  const floor = result.floor.flaky;
  console.log(
    `floor at ${Math.round(result.failureRate * 100)}% failures: ${floor.sqsRequestsPerEvent.toFixed(3)} SQS requests and ${floor.dynamoWriteUnitsPerEvent.toFixed(3)} write units per event, $${floor.bill.total.toFixed(3)}/M`,
  );
  console.log(
    `\nFlaky receiver: ${Math.round(result.failureRate * 100)}% of calls answer 503 (seed ${result.seed})${result.latency === undefined ? "" : `, each answer after ${result.latency.minMs}–${result.latency.maxMs} ms`}`,
  );
  console.log(tableOf(result.contenders, true));
  if (result.healthy !== undefined) {
    console.log("\nHealthy receiver: every call answers 200");
    console.log(tableOf(result.healthy, false));
  }
  console.log(
    `\nceiling (receive + 2 conditional UpdateItems + batch delete, same concurrency): ${result.ceiling.attemptsPerSecond} attempts/s`,
  );
};

if (values["cold-start"]) {
  // No emulator needed: the import and the empty first batch make no AWS call, the endpoints
  // only have to be set. One JSON object, like --json.
  const samples = wholeNumber("samples", values.samples, 3);
  const target = {
    endpoints: { sqs: "http://127.0.0.1:4566", dynamodb: "http://127.0.0.1:4566" },
    region: "us-east-1",
  };
  const figures = values.tracing
    ? await measureTracingColdStart(target, samples)
    : await measureBundle(target, samples);
  console.log(JSON.stringify({ samples, ...figures }));
  process.exit(0);
}

const metadata = await startRunMetadata(process.argv.slice(2));
const local = await startLocalAws();
const stopOnSignal = () => {
  void local.stop().finally(() => process.exit(130));
};
process.once("SIGINT", stopOnSignal);
process.once("SIGTERM", stopOnSignal);
try {
  const scenario = values.tracing ? "retries" : scenarioOf(values.scenario);
  // Tracing on against off: divided by Ricochet untraced, whose A/A twin gives the run's band.
  const contenders = values.tracing ? [ricochet, ricochetTraced, ricochetAA] : CONTENDERS;
  const comparison = values.tracing ? { baseline: ricochet, twin: ricochetAA } : undefined;
  const progress = (line: string) => console.error(`[bench] ${line}`);
  const result =
    scenario !== "all" && scenario !== "retries"
      ? undefined
      : await runBenchmark({
          local,
          events: wholeNumber("events", values.events, DEFAULT_EVENTS),
          rounds: wholeNumber("rounds", values.rounds, contenders.length),
          contenders,
          ...(comparison === undefined ? {} : { comparison }),
          seed: wholeNumber("seed", values.seed, 7),
          ...(values.rate === undefined ? {} : { submitRate: wholeNumber("rate", values.rate, 1) }),
          latency: latencyOf(values.latency),
          ...(values.concurrency === undefined
            ? {}
            : { concurrency: wholeNumber("concurrency", values.concurrency, 1) }),
          progress,
        });
  // Its own event counts, rate and concurrency: --events, --rate and --concurrency are the retries'.
  const noisyNeighbour =
    scenario !== "all" && scenario !== "noisy-neighbour"
      ? undefined
      : await runNoisyNeighbour({
          local,
          progress,
          // Unset, as many rounds as balance the contenders' places (runNoisyNeighbour's default).
          ...(values["noisy-rounds"] === undefined
            ? {}
            : { settings: { rounds: wholeNumber("noisy-rounds", values["noisy-rounds"], 1) } }),
        });
  const rateLimited =
    scenario === "all" || scenario === "rate-limited"
      ? await runRateLimited({ local, progress })
      : undefined;
  const saturating =
    scenario === "all" || scenario === "saturating"
      ? await runSaturating({ local, progress })
      : undefined;
  if (values.json) {
    console.log(
      JSON.stringify({
        run: finished(metadata),
        ...result,
        ...(noisyNeighbour === undefined ? {} : { noisyNeighbour }),
        ...(rateLimited === undefined ? {} : { rateLimited }),
        ...(saturating === undefined ? {} : { saturating }),
      }),
    );
  } else {
    if (result !== undefined) printTables(result);
    if (noisyNeighbour !== undefined) console.log(`\n${noisyNeighbourTable(noisyNeighbour)}`);
    if (rateLimited !== undefined) console.log(`\n${rateLimitedTable(rateLimited)}`);
    if (saturating !== undefined) console.log(`\n${saturatingTable(saturating)}`);
  }
} finally {
  await local.stop();
}
