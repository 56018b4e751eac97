import { performance } from "node:perf_hooks";
import { Command } from "commander";
import { parseFraction, parseWholeNumber } from "../../lib/cli/cli-support.js";
import { timingRatios } from "../support/deployed-timings.js";
import {
  runSimulation,
  SENSITIVE_BREAKERS,
  SIMULATION_TIMINGS,
  TIGHT_LIMITS,
} from "./simulation.js";
import { addRun, noTotals } from "./simulation-totals.js";

/*
 * `npm run simulate -- --seed S --runs K [--events N] [--json]`: runs K seeded simulations
 * (seeds S, S+1, …), prints each violation with the seed that replays it, and exits non-zero
 * if there was any.
 */

const program = new Command("simulate")
  .description("Deterministic simulation of the orchestrator and redrive under seeded faults")
  .option("--seed <n>", "first seed", parseWholeNumber, 1)
  .option("--runs <n>", "number of runs (seeds seed, seed+1, …)", parseWholeNumber, 100)
  .option("--events <n>", "events per run", parseWholeNumber, 20)
  .option("--workers <n>", "concurrent workers", parseWholeNumber, 3)
  .option("--fault-rate <p>", "base probability of a fault at each step", parseFraction, 0.02)
  .option("--lambda-targets", "send some events to Lambda targets (60 s timeout)", false)
  .option("--broken-store", "use a store that ignores leases (self-test)", false)
  .option("--breakers", "turn on the targets' circuit breakers, set to trip easily", false)
  .option("--limits", "hold the targets to tight concurrency and rate limits", false)
  .option("--adaptive", "learn each instance's limit for the target from its calls", false)
  .option("--message-concurrency <n>", "messages of a batch attempted at once", parseWholeNumber, 3)
  .option(
    "--per-seed",
    "print each run's totals as one JSON line, to compare runs seed for seed",
    false,
  )
  .option("--json", "print one JSON summary as the last line", false)
  .parse();

interface Flags {
  seed: number;
  runs: number;
  events: number;
  workers: number;
  faultRate: number;
  lambdaTargets: boolean;
  brokenStore: boolean;
  breakers: boolean;
  limits: boolean;
  adaptive: boolean;
  messageConcurrency: number;
  perSeed: boolean;
  json: boolean;
}

const flags = program.opts<Flags>();
const started = performance.now();
const totals = noTotals();
for (let run = 0; run < flags.runs; run += 1) {
  const seed = flags.seed + run;
  const result = await runSimulation({
    seed,
    events: flags.events,
    workers: Math.max(1, flags.workers),
    faultRate: flags.faultRate,
    lambdaTargets: flags.lambdaTargets,
    brokenStore: flags.brokenStore ? "ignore_leases" : undefined,
    breakers: flags.breakers ? SENSITIVE_BREAKERS : undefined,
    limits: flags.limits ? TIGHT_LIMITS : undefined,
    adaptive: flags.adaptive,
    messageConcurrency: Math.max(1, flags.messageConcurrency),
  });
  addRun(totals, result);
  if (flags.perSeed) {
    const own = noTotals();
    addRun(own, result);
    console.log(JSON.stringify({ seed, ...own }));
  }
  for (const violation of result.violations) {
    if (!flags.json)
      console.error(`seed ${violation.seed}: ${violation.invariant}: ${violation.detail}`);
  }
}
const seconds = Math.round((performance.now() - started) / 10) / 100;
const summary = {
  runs: flags.runs,
  seed: flags.seed,
  messageConcurrency: flags.messageConcurrency,
  ratios: timingRatios(SIMULATION_TIMINGS),
  ...totals,
  seconds,
};
if (flags.json) {
  console.log(JSON.stringify(summary));
} else {
  console.log(
    `${flags.runs} runs from seed ${flags.seed}: ${totals.events} events, ${totals.delivered} delivered, ` +
      `${totals.rejected} rejected, ${totals.deadLettered} dead-lettered, ${totals.redriven} redriven, ` +
      `${totals.crashes} crashes, ${totals.forged} forged and ${totals.conflicting} conflicting ` +
      `messages, ${totals.forgedDeadLetters} forged dead-letter copies, ${totals.hostileKeys} ` +
      `hostile key names, ${totals.staleDeadLetterDeletes} stale-handle deletes, ${totals.resultWriteFaults} failed result writes, ${totals.bulky} bulky events, ` +
      `${totals.deferred} deferrals, ${totals.scheduled} scheduled, ` +
      `${totals.cancelled} cancelled, ${totals.replayed} replays, ` +
      `${totals.violations.length} violation(s), ${seconds} s`,
  );
}
process.exitCode = totals.violations.length > 0 ? 1 : 0;
