import { type CleanReport, cleanDeadLetters } from "../../lib/app/operator/dead-letter-clean.js";
import {
  type DeadLetterListing,
  listDeadLetters,
} from "../../lib/app/operator/dead-letter-scan.js";
import { type RedriveReport, redrive, SkipReason } from "../../lib/app/operator/redrive.js";
import { DeadLetterReason } from "../../lib/core/decide.js";
import type { RetryPolicy } from "../../lib/core/policy.js";
import type {
  DeadLetterQueue,
  EventStore,
  IngressQueue,
  ReceivedDeadLetter,
} from "../../lib/core/ports.js";
import { EventStatus, isTerminal } from "../../lib/core/status.js";
import { type Process, untilCrash } from "./faults.js";

/** Who the simulated operator is, as written in redrive audit entries. */
export const OPERATOR = "sim-operator";
/**
 * Redrive runs the operator makes at most before giving up. Every run releases each copy it
 * scanned, one call each that may crash it, so at a 10 % fault rate a run over 25 copies
 * completes about one time in twenty and an event can take several hundred runs (seed 5084).
 * With the clean-up's runs and the pauses (about 43 h) they stay within the 3-day limit.
 */
const MAX_REDRIVE_RUNS = 1000;
/**
 * Runs the operator makes at most after the redrives (clean-ups, and redrives of events stranded
 * again), on a count of their own: a clean-up that failed is re-run as a person re-runs a failed
 * CLI command, not skipped because the redrives used up a shared count.
 */
const MAX_CLEAN_RUNS = 300;
/** Between runs: longer than a crashed run's hold on the copies it scanned (count / rate + 60 s). */
const PAUSE_BETWEEN_RUNS_MS = 120_000;
/**
 * How long a clean's scan holds the copies: short, so that the hold runs out before some deletes,
 * as on a long queue or a slow store, and a second operator's `dlq list` may receive a copy the
 * clean still means to delete (its receipt handle is then outdated).
 */
const CLEAN_SCAN_VISIBILITY_SECONDS = 1;
/** The `dlq list` runs a second operator makes while a clean runs, and the pause between them. */
const LISTS_DURING_CLEAN = 3;
const PAUSE_BETWEEN_LISTS_MS = 700;

/** A process the operator's run lives in, and what it can reach through its faulty ports. */
interface OperatorRun {
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
  /** Told of every dead-letter copy a clean-up run received (the checks judge what went). */
  readonly onCleanReceived: (copy: ReceivedDeadLetter) => void;
  /**
   * Told, after each clean-up run, of the copies it may have removed without an audit entry, as
   * its operator was told: those it reported failed, or every one it received when it died.
   */
  readonly onCleanExcused: (messageIds: readonly string[]) => void;
  /** Told of every clean-up run's report that came back. */
  readonly onCleanReport: (report: CleanReport) => void;
  /** Told of every message a redrive run sent back to the internal queue. */
  readonly onRedriven: (body: string) => void;
  /**
   * How long each record read of a clean-up takes beyond its latency: sometimes longer than the
   * scan's hold, as a slow store or a long queue makes it.
   */
  readonly cleanReadDelayMs: () => number;
  /** Told of every listing a second operator's `dlq list` printed. */
  readonly onListing: (listing: DeadLetterListing[]) => void;
  /** How the operator reads records (`ricochet status`), outside any run's faults. */
  readonly store: EventStore;
}

/** Runs `work` in a fresh operator process; undefined when it crashed or failed as a whole. */
const inRun = <T>(
  run: number,
  options: SimulatedOperatorOptions,
  work: (run: OperatorRun) => Promise<T>,
): Promise<T | undefined> => untilCrash(options.startRun(run), work);

/** How redrive reports an `invalid_envelope` copy it cannot replay (lib/app/operator/redrive-verdict.ts). */
const INVALID_COPY = /^invalid envelope: /;

/** What a redrive run selects: events by id, or every copy dead-lettered for these reasons. */
type Selection =
  | { readonly eventIds: readonly string[] }
  | { readonly reasons: readonly DeadLetterReason[] };

/** A routine redrive, as an operator runs one after a partner's outage: `--reason exhausted`. */
const ROUTINE: Selection = { reasons: [DeadLetterReason.EXHAUSTED] };

/** One redrive run of `selection`; undefined when it crashed or failed as a whole. */
const redriveRun = async (
  run: number,
  selection: Selection,
  options: SimulatedOperatorOptions,
): Promise<RedriveReport | undefined> => {
  const report = await inRun(run, options, ({ process, ports }) =>
    redrive(
      {
        deadLetterQueue: ports.deadLetters,
        ingressQueue: {
          ...ports.ingress,
          send: async (body, schedule, delaySeconds) => {
            await ports.ingress.send(body, schedule, delaySeconds);
            options.onRedriven(body);
          },
        },
        store: ports.store,
        clock: process.clock,
        sleep: options.sleep,
        defaultPolicy: options.defaultPolicy,
      },
      {
        ...("eventIds" in selection
          ? { eventIds: [...selection.eventIds] }
          : { reasons: [...selection.reasons] }),
        by: OPERATOR,
        why: "simulation",
        extraAttempts: 2,
        ratePerSecond: 20,
      },
    ),
  );
  if (report !== undefined) options.onReport(report);
  return report;
};

/** `queue`, telling `onReceived` of each copy received through it. */
const reportingReceives = (
  queue: DeadLetterQueue,
  onReceived: (copy: ReceivedDeadLetter) => void,
): DeadLetterQueue => ({
  ...queue,
  receive: async (options) => {
    const page = await queue.receive(options);
    for (const copy of page) onReceived(copy);
    return page;
  },
});

/** One `ricochet dlq clean` run; whether it finished with every obsolete copy removed. */
const cleanRun = async (run: number, options: SimulatedOperatorOptions): Promise<boolean> => {
  const received: string[] = [];
  const report = await inRun(run, options, ({ process, ports }) =>
    cleanDeadLetters(
      {
        deadLetterQueue: reportingReceives(ports.deadLetters, (copy) => {
          received.push(copy.messageId);
          options.onCleanReceived(copy);
        }),
        store: {
          ...ports.store,
          get: async (eventId) => {
            await options.sleep(options.cleanReadDelayMs());
            return ports.store.get(eventId);
          },
        },
        clock: process.clock,
        scanVisibilitySeconds: CLEAN_SCAN_VISIBILITY_SECONDS,
      },
      { dryRun: false, by: OPERATOR, reason: "simulation" },
    ),
  );
  if (report !== undefined) options.onCleanReport(report);
  options.onCleanExcused(report === undefined ? received : report.failed.map((f) => f.messageId));
  return report !== undefined && report.failed.length === 0;
};

/**
 * A second operator's `ricochet dlq list` runs while a clean runs (a short hold of their own,
 * like the CLI's): each receives the copies no one holds, and so outdates the handles a clean
 * whose hold ran out still has.
 */
const listDuringClean = async (run: number, options: SimulatedOperatorOptions): Promise<void> => {
  for (let list = 0; list < LISTS_DURING_CLEAN; list += 1) {
    const listing = await inRun(run, options, ({ ports }) =>
      listDeadLetters(ports.deadLetters, { filter: {}, visibilitySeconds: 1 }, ports.store),
    );
    if (listing !== undefined) options.onListing(listing);
    await options.sleep(PAUSE_BETWEEN_LISTS_MS);
  }
};

/**
 * Which of `eventIds` ended delivered, as the operator reads it, and whether all of them have
 * ended (terminal); undefined if a read failed.
 */
const deliveredAmong = async (
  eventIds: readonly string[],
  store: EventStore,
): Promise<(string[] & { readonly unsettled: string[] }) | undefined> => {
  try {
    const records = await Promise.all(eventIds.map((id) => store.get(id)));
    const delivered = records.flatMap((r) =>
      r?.status === EventStatus.DELIVERED ? [r.eventId] : [],
    );
    const unsettled = records.flatMap((r) =>
      r !== undefined && !isTerminal(r.status) ? [r.eventId] : [],
    );
    return Object.assign(delivered, { unsettled });
  } catch {
    return undefined;
  }
};

/**
 * The event a single-event run takes: each in turn, as a person works down a list. Always the
 * first would let one event no run completes for (or a copy redrive rightly skips) use up every
 * run while the others wait (seed 5086 at fault rate 0.1).
 */
const inTurn = (eventIds: readonly string[], turn: number): string =>
  eventIds[turn % eventIds.length] as string;

/**
 * An operator redriving `eventIds` (every event not delivered when the run went quiet) until each
 * was moved, as a person would: first one routine redrive by reason (`--reason exhausted`), which
 * meets every forged copy with that reason too, then by id: a run can crash, fail on a throttled call, miss copies an earlier
 * crashed run still holds hidden, or skip an event still leased by a worker that died. After a
 * run that failed, the next one takes a single event, each in turn: at high fault rates a run
 * over many copies almost never completes. Then, like a person watching the dead-letter alarm,
 * `ricochet dlq clean` once every event ended, until a run of it completes, redriving again any
 * event still unfinished meanwhile. Resolves when done or after {@link MAX_REDRIVE_RUNS} + {@link MAX_CLEAN_RUNS} runs.
 */
export const operatorRedrive = async (
  eventIds: readonly string[],
  options: SimulatedOperatorOptions,
): Promise<void> => {
  const remaining = new Set(eventIds);
  let lastRunFailed = false;
  let singles = 0;
  let run = 0;
  // First the routine redrive of everything exhausted, by reason: it meets every copy in the queue
  // with that reason, forged ones included, and must move only those the record bears out.
  await redriveRun(run++, ROUTINE, options);
  await options.sleep(PAUSE_BETWEEN_RUNS_MS);
  for (; run < MAX_REDRIVE_RUNS && remaining.size > 0; run += 1) {
    // An event a crashed run moved (its report lost, its copy deleted) is delivered by now and
    // has nothing left to move: a person checking `ricochet status` stops chasing it, and the
    // clean-up below deletes any copy it left.
    for (const id of (await deliveredAmong([...remaining], options.store)) ?? [])
      remaining.delete(id);
    if (remaining.size === 0) break;
    const report = await redriveRun(
      run,
      { eventIds: lastRunFailed ? [inTurn([...remaining], singles++)] : [...remaining] },
      options,
    );
    lastRunFailed = report === undefined;
    if (report !== undefined) {
      // A move whose dead-letter copy could not be deleted is also reported failed; the next
      // run deletes that copy ("already redriven"), so the operator keeps the event.
      // An invalid envelope's copy under the same id (a hostile producer's) fails on its own and
      // says so: it is not the moved copy, and the operator does not chase the event for it.
      const leftCopy = new Set(
        report.failed.filter((f) => !INVALID_COPY.test(f.error)).map((f) => f.eventId),
      );
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
  // The dead-letter alarm still firing after the events were redriven and delivered: a copy a
  // crashed run held hidden, a second copy of one dead-letter decision (a takeover re-sends it,
  // not knowing whether the first send landed), or a raw message the queue parked during a crash
  // loop while another copy of its event was delivered. `ricochet dlq clean` removes the copies
  // of delivered events, whoever they were redriven by or never; anything else stays.
  let listed = false;
  for (let clean = 0; clean < MAX_CLEAN_RUNS; clean += 1, run += 1) {
    // Redriven events still on their way (a batch back after its visibility timeout) may leave a
    // second copy of their dead-letter decision; the alarm is looked at again once they ended.
    const unsettled = (await deliveredAmong(eventIds, options.store))?.unsettled;
    if (unsettled?.length === 0) {
      // The first clean-up runs beside a second operator's listings, which hold copies hidden
      // that its scan then misses: the operator, seeing the alarm still firing, cleans again.
      const beside = listed ? [] : [listDuringClean(run + MAX_CLEAN_RUNS, options)];
      const [cleaned] = await Promise.all([cleanRun(run, options), ...beside]);
      if (cleaned && listed) return;
      listed = true;
    }
    // One still unfinished may be stranded again after its redrive: its new message parked raw
    // by a crash loop, its record in flight under an expired lease (seed 21 at fault rate 0.1).
    // A person reading `ricochet status` redrives it once more; one on its way is skipped.
    if (unsettled !== undefined && unsettled.length > 0)
      await redriveRun(run, { eventIds: unsettled }, options);
    await options.sleep(PAUSE_BETWEEN_RUNS_MS);
  }
};
