import type { RetryPolicy } from "../../lib/core/policy.js";
import type { DeadLetterQueue, EventStore, IngressQueue } from "../../lib/core/ports.js";
import { type RedriveReport, redrive, SkipReason } from "../../lib/redrive.js";
import type { Process } from "./faults.js";

/** Who the simulated operator is, as written in redrive audit entries. */
export const OPERATOR = "sim-operator";
/** Redrive runs the operator makes at most before giving up. */
const MAX_REDRIVE_RUNS = 100;
/** Between runs: longer than a crashed run's hold on the copies it scanned (count / rate + 60 s). */
const PAUSE_BETWEEN_RUNS_MS = 120_000;

/** A process the operator's run lives in, and what it can reach through its faulty ports. */
export interface OperatorRun {
  readonly process: Process & { readonly stopped: Promise<void> };
  readonly ports: {
    readonly store: EventStore;
    readonly ingress: IngressQueue;
    readonly deadLetters: DeadLetterQueue;
  };
}

export interface SimulatedOperatorOptions {
  /** A fresh process (with its own clock skew and faulty ports) for redrive run `run`. */
  readonly startRun: (run: number) => OperatorRun;
  readonly sleep: (ms: number) => Promise<void>;
  readonly defaultPolicy: RetryPolicy;
  /** Told of every run's report that came back (crashed runs report nothing). */
  readonly onReport: (report: RedriveReport) => void;
}

/**
 * An operator redriving `eventIds` (every event not delivered when the run went quiet) until each
 * was moved, as a person would: a run can crash, fail on a throttled call, miss copies an earlier
 * crashed run still holds hidden, or skip an event still leased by a worker that died. After a
 * run that failed, the next one takes a single event: at high fault rates a run over many copies
 * almost never completes. Resolves when done or after {@link MAX_REDRIVE_RUNS} runs.
 */
export const operatorRedrive = async (
  eventIds: readonly string[],
  options: SimulatedOperatorOptions,
): Promise<void> => {
  const remaining = new Set(eventIds);
  let lastRunFailed = false;
  for (let run = 0; run < MAX_REDRIVE_RUNS && remaining.size > 0; run += 1) {
    const { process, ports } = options.startRun(run);
    const report: RedriveReport | undefined = await Promise.race([
      redrive(
        {
          deadLetterQueue: ports.deadLetters,
          ingressQueue: ports.ingress,
          store: ports.store,
          clock: process.clock,
          sleep: options.sleep,
          defaultPolicy: options.defaultPolicy,
        },
        {
          eventIds: [...remaining].slice(0, lastRunFailed ? 1 : remaining.size),
          by: OPERATOR,
          why: "simulation",
          extraAttempts: 2,
          ratePerSecond: 20,
        },
      ).catch(() => undefined),
      process.stopped.then(() => undefined),
    ]);
    lastRunFailed = report === undefined || process.crashed;
    if (report !== undefined && !process.crashed) {
      options.onReport(report);
      // A move whose dead-letter copy could not be deleted is also reported failed; the next
      // run deletes that copy ("already redriven"), so the operator keeps the event.
      const leftCopy = new Set(report.failed.map((f) => f.eventId));
      for (const moved of report.moved)
        if (!leftCopy.has(moved.eventId)) remaining.delete(moved.eventId);
      for (const skipped of report.skipped) {
        const settled =
          skipped.reason === SkipReason.ALREADY_REDRIVEN || skipped.reason === SkipReason.DELIVERED;
        if (settled && skipped.eventId !== undefined) remaining.delete(skipped.eventId);
      }
    }
    await options.sleep(PAUSE_BETWEEN_RUNS_MS);
  }
};
