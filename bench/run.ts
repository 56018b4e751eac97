/**
 * Benchmarks Ricochet against a Powertools batch consumer and a bare SQS consumer, side by side
 * on one local AWS (fauxqs + DynamoDB Local) and one local receiver with seeded 503s.
 *
 *   npm run bench                              # 300 events × 3 rounds, a table
 *   npm run bench -- --json --events 100 --rounds 1
 *
 * With --json the last line printed is one JSON object. Progress goes to stderr.
 */
import { parseArgs } from "node:util";
import Table from "cli-table3";
import { startLocalAws } from "../lib/local/start-local-aws.js";
import { type BenchResult, runBenchmark } from "./harness.js";

const wholeNumber = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new Error(`--${name} must be a whole number of at least 1, got ${value}`);
  }
  return parsed;
};

const { values } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    events: { type: "string" },
    rounds: { type: "string" },
    seed: { type: "string" },
  },
});

const printTable = (result: BenchResult): void => {
  const names = Object.keys(result.contenders);
  const table = new Table({ head: ["figure", ...names] });
  const rows: [string, (name: string) => unknown][] = [
    ["events/s", (n) => result.contenders[n]?.eventsPerSecond],
    ["target calls/event", (n) => result.contenders[n]?.attemptsPerEvent],
    ["AWS requests/event", (n) => result.contenders[n]?.requestsPerEvent],
    ["DynamoDB writes/event", (n) => result.contenders[n]?.dynamoWritesPerEvent],
    ["DynamoDB writes/attempt", (n) => result.contenders[n]?.dynamoWritesPerAttempt],
    ["DynamoDB reads/event", (n) => result.contenders[n]?.dynamoReadsPerEvent],
    ["CPU ms/record", (n) => result.contenders[n]?.cpuMsPerRecord],
    ["schedule error p50 ms", (n) => result.contenders[n]?.scheduleErrorP50Ms],
    ["schedule error p99 ms", (n) => result.contenders[n]?.scheduleErrorP99Ms],
    [
      "record bytes p50 / max",
      (n) => {
        const f = result.contenders[n];
        return f?.recordBytesP50 == null ? undefined : `${f.recordBytesP50} / ${f.recordBytesMax}`;
      },
    ],
    ["bundle bytes", (n) => result.contenders[n]?.bundleBytes],
    ["init ms", (n) => result.contenders[n]?.initMs],
    ["fraction of ceiling", (n) => result.contenders[n]?.ceilingFraction],
  ];
  for (const [label, pick] of rows)
    table.push([label, ...names.map((n) => String(pick(n) ?? "–"))]);
  const apis = [
    ...new Set(names.flatMap((n) => Object.keys(result.contenders[n]?.requestsByApi ?? {}))),
  ].sort();
  for (const api of apis) {
    table.push([
      `  ${api}/event`,
      ...names.map((n) => String(result.contenders[n]?.requestsByApi[api] ?? 0)),
    ]);
  }
  console.log(
    `${result.events} events × ${result.rounds} rounds, ${Math.round(result.failureRate * 100)}% seeded 503s (seed ${result.seed}), ${result.pollers} pollers × batches of ${result.batchSize}; medians over rounds`,
  );
  console.log(table.toString());
  console.log(
    `ceiling (receive + 2 conditional UpdateItems + batch delete, same concurrency): ${result.ceiling.attemptsPerSecond} attempts/s`,
  );
};

const local = await startLocalAws();
const stopOnSignal = () => {
  void local.stop().finally(() => process.exit(130));
};
process.once("SIGINT", stopOnSignal);
process.once("SIGTERM", stopOnSignal);
try {
  const result = await runBenchmark({
    local,
    events: wholeNumber("events", values.events, 300),
    rounds: wholeNumber("rounds", values.rounds, 3),
    seed: wholeNumber("seed", values.seed, 7),
    progress: (line) => console.error(`[bench] ${line}`),
  });
  if (values.json) console.log(JSON.stringify(result));
  else printTable(result);
} finally {
  await local.stop();
}
