import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { RedriveReport } from "../../app/operator/redrive.js";
import type { RedriveRequestInput } from "../../app/operator/redrive-request.js";
import type { RicochetClient } from "../../client/producer-client.js";
import type { EventStore } from "../../core/ports.js";
import { EventStatus, isTerminal } from "../../core/status.js";
import { smokeTargetPath } from "./smoke-receiver.js";
import { SMOKE_POLICY, SMOKE_SCENARIOS, type SmokeScenario } from "./smoke-scenarios.js";

/*
 * The smoke's "drive and check", apart from how the stack got there: given a producer client on
 * the ingress queue, the records, a redrive and a receiver, it submits one event per scenario and
 * polls the records until each reaches its end or the time runs out. The script runs it against
 * LocalStack; the test runs it against the emulators, the only place it can run here.
 */

/** Who the smoke's redrive is recorded as, on the event's audit entry. */
const SMOKE_REDRIVER = "ricochet-smoke";
const DEFAULT_POLL_MS = 500;

/** What the check drives and reads. */
export interface SmokeCheckOptions {
  /** The producer client on the deployment's ingress queue. */
  readonly client: RicochetClient;
  /** The deployment's attempt records. */
  readonly store: EventStore;
  /** Base URL the orchestrator reaches the receiver by (`http://host.docker.internal:<port>`). */
  readonly receiverUrl: string;
  /** The receiver's switch: the recovering target answers 200 once it is called. */
  readonly recover: () => void;
  /** The deployed operator function, or the in-process redrive the CLI runs. */
  readonly redrive: (request: RedriveRequestInput) => Promise<RedriveReport>;
  /** Give up on every scenario not at its end after this long from the submission. */
  readonly timeoutMs: number;
  readonly pollMs?: number | undefined;
  /** Prefix of the event ids; unique by default, because a deployment keeps its records. */
  readonly runId?: string | undefined;
}

/** Status and attempts of a record; `null` where no record was found. */
interface SmokeOutcome {
  readonly status: EventStatus | null;
  readonly attempts: number | null;
}

/** One scenario's line in the summary. */
interface SmokeResult {
  readonly scenario: string;
  readonly eventId: string;
  readonly ok: boolean;
  readonly expected: { readonly status: EventStatus; readonly attempts: number };
  readonly actual: SmokeOutcome;
  /** From the submission to the end (or to the timeout). */
  readonly seconds: number;
  /** False when the timeout came first. */
  readonly finished: boolean;
}

/** The JSON the smoke prints. */
export interface SmokeSummary {
  /** True when every scenario ended as expected. */
  readonly ok: boolean;
  readonly runId: string;
  readonly receiverUrl: string;
  readonly seconds: number;
  readonly scenarios: readonly SmokeResult[];
  /** What the redrives reported, summed, when one was asked for (`calls`: how many). */
  readonly redrive?: {
    readonly calls: number;
    readonly moved: number;
    readonly skipped: number;
    readonly failed: number;
  };
}

const seconds = (fromMs: number, toMs: number): number => Math.round(toMs - fromMs) / 1000;

const envelopeFor = (scenario: SmokeScenario, eventId: string, receiverUrl: string) => ({
  eventId,
  target: { type: "http", url: `${receiverUrl}${smokeTargetPath(scenario.behaviour)}` },
  payload: { smoke: scenario.name },
  policy: SMOKE_POLICY,
});

/** One run's progress: what each scenario ended as, what was last seen, what was redriven. */
interface SmokeRun {
  readonly options: SmokeCheckOptions;
  readonly runId: string;
  readonly startedMs: number;
  readonly deadlineMs: number;
  readonly results: Map<string, SmokeResult>;
  readonly lastSeen: Map<string, SmokeOutcome>;
  readonly redriveTotals: { calls: number; moved: number; skipped: number; failed: number };
  readonly redriven: Set<string>;
}

const eventIdOf = (run: SmokeRun, scenario: SmokeScenario): string =>
  `${run.runId}:${scenario.name}`;

const timedOut = (run: SmokeRun): boolean => Date.now() >= run.deadlineMs;

/** Redrives one event; true once its dead-letter copy was moved. */
const redriveEvent = async (run: SmokeRun, eventId: string): Promise<boolean> => {
  const report = await run.options.redrive({
    eventIds: [eventId],
    by: SMOKE_REDRIVER,
    why: "smoke: the receiver recovered",
  });
  const totals = run.redriveTotals;
  totals.calls += 1;
  totals.moved += report.moved.length;
  totals.skipped += report.skipped.length;
  totals.failed += report.failed.length;
  return report.moved.some((moved) => moved.eventId === eventId);
};

const finish = (
  run: SmokeRun,
  scenario: SmokeScenario,
  outcome: SmokeOutcome,
  finished: boolean,
): void => {
  run.results.set(scenario.name, {
    scenario: scenario.name,
    eventId: eventIdOf(run, scenario),
    ok:
      finished &&
      outcome.status === scenario.expectedStatus &&
      outcome.attempts === scenario.expectedAttempts,
    expected: { status: scenario.expectedStatus, attempts: scenario.expectedAttempts },
    actual: outcome,
    seconds: seconds(run.startedMs, Date.now()),
    finished,
  });
};

/** Reads one scenario's record: finishes it at its end, or redrives it when it is due one. */
const checkScenario = async (run: SmokeRun, scenario: SmokeScenario): Promise<void> => {
  const record = await run.options.store.get(eventIdOf(run, scenario));
  if (record === undefined) return;
  const outcome = { status: record.status, attempts: record.attempts };
  run.lastSeen.set(scenario.name, outcome);
  if (!isTerminal(record.status)) return;
  if (
    scenario.redrive &&
    !run.redriven.has(scenario.name) &&
    record.status === EventStatus.REJECTED
  ) {
    // The receiver recovers first, so the attempt the redrive grants is answered 200.
    run.options.recover();
    // A redrive that moved nothing is asked again on the next round: another redrive's scan
    // (an operator's, a second smoke) can hide the copy from this one for a moment.
    if (await redriveEvent(run, eventIdOf(run, scenario))) run.redriven.add(scenario.name);
    return;
  }
  finish(run, scenario, outcome, true);
};

/** Rounds of reads until every scenario has ended or the time is up; the rest end unfinished. */
const pollUntilEnded = async (run: SmokeRun): Promise<void> => {
  for (;;) {
    for (const scenario of SMOKE_SCENARIOS) {
      // Checked before each read, not once a round: on a slow emulator a round of reads can
      // outlast the timeout, and what a read past it sees came too late to count.
      if (timedOut(run)) break;
      if (!run.results.has(scenario.name)) await checkScenario(run, scenario);
    }
    if (run.results.size === SMOKE_SCENARIOS.length || timedOut(run)) break;
    await sleep(run.options.pollMs ?? DEFAULT_POLL_MS);
  }
  for (const scenario of SMOKE_SCENARIOS) {
    if (!run.results.has(scenario.name)) {
      finish(
        run,
        scenario,
        run.lastSeen.get(scenario.name) ?? { status: null, attempts: null },
        false,
      );
    }
  }
};

const summaryOf = (run: SmokeRun): SmokeSummary => {
  const scenarios = SMOKE_SCENARIOS.flatMap((s) => run.results.get(s.name) ?? []);
  return {
    ok: scenarios.every((result) => result.ok),
    runId: run.runId,
    receiverUrl: run.options.receiverUrl,
    seconds: seconds(run.startedMs, Date.now()),
    scenarios,
    ...(run.redriveTotals.calls === 0 ? {} : { redrive: run.redriveTotals }),
  };
};

/**
 * Submits one event per scenario through the producer client and polls their records until each
 * ends as expected (status and attempts) or `timeoutMs` passes. The recovering scenario's event is
 * redriven once it is rejected, after `recover()`. Never throws for a mismatch: the summary says.
 * @throws when the client refuses an envelope, or a store read or the redrive call fails.
 */
export const runSmokeCheck = async (options: SmokeCheckOptions): Promise<SmokeSummary> => {
  const startedMs = Date.now();
  const run: SmokeRun = {
    options,
    runId: options.runId ?? `smoke-${randomUUID().slice(0, 8)}`,
    startedMs,
    deadlineMs: startedMs + options.timeoutMs,
    results: new Map(),
    lastSeen: new Map(),
    redriveTotals: { calls: 0, moved: 0, skipped: 0, failed: 0 },
    redriven: new Set(),
  };
  const submitted = await options.client.submitBatch(
    SMOKE_SCENARIOS.map((s) => envelopeFor(s, eventIdOf(run, s), options.receiverUrl)),
  );
  if (submitted.rejected.length > 0) {
    throw new Error(`the smoke's events were refused: ${JSON.stringify(submitted.rejected)}`);
  }
  await pollUntilEnded(run);
  return summaryOf(run);
};
