import { Command } from "commander";
import { parseFraction, parseWholeNumber } from "../../lib/cli/cli-support.js";
import { CHAOS_TIME_SCALE, type ChaosReport, runChaos } from "./run-chaos.js";

/*
 * `npm run chaos -- --seed S --events N [--workers W] [--kills K] [--fault-rate P]
 * [--time-scale T] [--json]`:
 * one chaos run on local AWS (started and stopped here). Progress goes to stderr; the summary is
 * printed last, as ONE JSON object with --json. Exits 1 on any violation or lost event, 130 on
 * Ctrl-C (after cleaning up).
 */

const program = new Command("chaos")
  .description("Chaos run on local AWS: faulty receiver, faulty AWS calls, killed workers")
  .option("--seed <n>", "seed of every random choice", parseWholeNumber, 1)
  .option("--events <n>", "events to submit", parseWholeNumber, 200)
  .option("--workers <n>", "worker processes", parseWholeNumber, 3)
  .option(
    "--kills <n>",
    "most SIGKILLs of workers (default: events / 100, 1 to 20)",
    parseWholeNumber,
  )
  .option(
    "--fault-rate <p>",
    "probability of a fault per AWS SDK HTTP attempt",
    parseFraction,
    0.03,
  )
  .option("--timeout <seconds>", "give up waiting for terminal states after", parseWholeNumber, 900)
  .option(
    "--time-scale <n>",
    "run every deployed timing n times shorter (ratios are kept)",
    parseWholeNumber,
    CHAOS_TIME_SCALE,
  )
  .option("--json", "print the summary as one JSON object, last", false)
  .parse();

interface Flags {
  seed: number;
  events: number;
  workers: number;
  kills?: number;
  faultRate: number;
  timeout: number;
  timeScale: number;
  json: boolean;
}

const flags = program.opts<Flags>();
const interrupted = new AbortController();
const onSignal = (): void => {
  if (interrupted.signal.aborted) process.exit(130);
  console.error("interrupted: stopping workers and local AWS (Ctrl-C again to force)");
  interrupted.abort();
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

const describe = (report: ChaosReport): string =>
  `seed ${report.seed}: ${report.events} events, ${report.delivered} delivered, ` +
  `${report.rejected} rejected, ${report.deadLettered} dead-lettered, ${report.unfinished} ` +
  `unfinished, ${report.lost} lost; ${report.targetCalls} target calls, ` +
  `${report.overlappingAttempts} overlapping, ${report.maxAttemptsExceeded} over budget; ` +
  `${report.workerKills} kills, ${report.violations.length} violation(s), ${report.seconds} s`;

const report = await runChaos({
  seed: flags.seed,
  events: flags.events,
  workers: Math.max(1, flags.workers),
  kills: flags.kills,
  faultRate: flags.faultRate,
  timeoutSeconds: flags.timeout,
  timeScale: flags.timeScale,
  signal: interrupted.signal,
  progress: (line) => console.error(line),
});
if (!flags.json) for (const violation of report.violations) console.error(violation.detail);
console.log(flags.json ? JSON.stringify(report) : describe(report));
process.exitCode = interrupted.signal.aborted
  ? 130
  : report.violations.length > 0 || report.lost > 0
    ? 1
    : 0;
