import type { ReceivedDeadLetter } from "../../lib/core/ports.js";
import type { EventRecord } from "../../lib/core/record.js";
import { isTerminal } from "../../lib/core/status.js";
import { INVARIANT_OF, INVARIANT_OF_RENDERING, Invariant } from "../simulation/invariants.js";
import {
  checkEndState,
  EndStateProblem,
  type LeftMessage,
  mentionsEvent,
} from "../support/end-state-checks.js";
import {
  checkAttemptsCountCalls,
  checkBoundedWork,
  checkCleanedCopies,
  checkCleanRemovalsAudited,
  checkConflictsCounted,
  checkForgedCopiesUnverified,
  checkNoDeadLetterForDelivered,
  checkOnlyAcceptedPayloads,
  checkRecordedFromFirstSight,
  cleanRemovalsOf,
  GuaranteeProblem,
} from "../support/guarantee-checks.js";
import { checkInertRenderings, type OperatorViews } from "../support/operator-renderings.js";
import type { ChaosCall } from "./chaos-receiver.js";
import { Reply } from "./chaos-script.js";
import type { ClaimTraces } from "./claim-trace.js";

/** One broken guarantee. */
interface ChaosViolation {
  readonly invariant: Invariant;
  readonly eventId?: string | undefined;
  readonly detail: string;
}

/** What the chaos run observed: the table, both queues and the receiver's log at the end. */
export interface ChaosObservation {
  readonly eventIds: readonly string[];
  readonly records: ReadonlyMap<string, EventRecord>;
  readonly ingress: readonly LeftMessage[];
  readonly deadLetters: readonly LeftMessage[];
  readonly calls: readonly ChaosCall[];
  /** The targets' timeout: a call is only trusted to be over once it has run this long. */
  readonly targetTimeoutMs: number;
  /**
   * Every event was terminal and the queue had its grace to drain: a message still live beside
   * a terminal record is then a violation. A run cut short is not judged on its leftovers.
   */
  readonly expectDrained: boolean;
  /** What the workers' claim traces say: claims, takeovers, landed results, unrecorded acks. */
  readonly traces: ClaimTraces;
  /** The payload fingerprint of each event's accepted envelope, by event id. */
  readonly accepted: ReadonlyMap<string, string>;
  /** Conflicting resubmissions the hostile producer sent, by event id. */
  readonly conflictsSent: ReadonlyMap<string, number>;
  /** The exact body of the events sent raw (the bulky ones), by event id. */
  readonly bodies?: ReadonlyMap<string, string>;
  /** The bodies of the forged copies the hostile producer sent to the dead-letter queue. */
  readonly forgedDeadLetterBodies?: ReadonlySet<string>;
  /** The copies the end-of-run `dlq clean` runs removed, and those they reported failed. */
  readonly cleaned?: {
    readonly removed: readonly ReceivedDeadLetter[];
    readonly excused: ReadonlySet<string>;
  };
  /** What an operator can look at once the run is over (each rendering must be inert). */
  readonly views?: OperatorViews;
}

/** The figures of one run; `violations` lists every broken guarantee. */
export interface ChaosFindings {
  readonly delivered: number;
  readonly rejected: number;
  readonly deadLettered: number;
  /** Not terminal, but a live message will still move them forward (a run cut by its timeout). */
  readonly unfinished: number;
  /** Neither terminal nor with a live message: nothing will ever finish them. */
  readonly lost: number;
  readonly targetCalls: number;
  /** Claims granted over an expired lease: the re-runs a kill or lost lease forced. */
  readonly leaseTakeovers: number;
  /**
   * Pairs of calls for one event where the later started before the earlier had ended AND
   * before the earlier had run for the target timeout — i.e. while the earlier caller could
   * still be waiting on it under its lease (lease = timeout + margin, so this undercounts by at
   * most the margin; the margin is the part of the lease that covers the result write).
   */
  readonly overlappingAttempts: number;
  /** Events with more target calls than their budget plus their takeovers. */
  readonly maxAttemptsExceeded: number;
  /** Calls that carried another payload than the event's accepted envelope's. */
  readonly foreignPayloadCalls: number;
  readonly violations: readonly ChaosViolation[];
}

const groupBy = <T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const list = groups.get(key(item));
    if (list === undefined) groups.set(key(item), [item]);
    else list.push(item);
  }
  return groups;
};

/** How many pairs of `calls` (one event's) overlapped while the earlier could still be live. */
export const countOverlaps = (calls: readonly ChaosCall[], targetTimeoutMs: number): number => {
  const ordered = [...calls].sort((a, b) => a.startedAt - b.startedAt);
  let overlaps = 0;
  for (const [i, first] of ordered.entries()) {
    const liveUntil = Math.min(
      first.endedAt ?? Number.POSITIVE_INFINITY,
      first.startedAt + targetTimeoutMs,
    );
    for (const later of ordered.slice(i + 1)) {
      if (later.startedAt < liveUntil) overlaps += 1;
    }
  }
  return overlaps;
};

/**
 * Judges a chaos run against the guarantees of DESIGN.md: the end-state and guarantee checks
 * shared with the simulation (2, 3, 4, 8, 9: the records' attempt counts against the calls and
 * the workers' traces among them), and the receiver's log (1, 3, 5).
 */
export const judgeChaosRun = (observed: ChaosObservation): ChaosFindings => {
  const violations: ChaosViolation[] = [];
  const fail = (invariant: Invariant, eventId: string | undefined, detail: string) =>
    violations.push({ invariant, eventId, detail });
  const known = new Set(observed.eventIds);
  const { records } = observed;
  // A forged copy is the hostile producer's message, not Ricochet's word: the checks of what
  // Ricochet's copies say are about the others (the forgeries have a check of their own).
  const forged = observed.forgedDeadLetterBodies ?? new Set<string>();
  const deadLetters = observed.deadLetters.filter((m) => !forged.has(m.body));

  let unfinished = 0;
  let lost = 0;
  for (const finding of checkEndState({ ...observed, deadLetters })) {
    if (finding.problem === EndStateProblem.NOT_TERMINAL && finding.liveMessages > 0) {
      unfinished += 1;
      continue;
    }
    if (finding.problem === EndStateProblem.NOT_TERMINAL) lost += 1;
    fail(INVARIANT_OF[finding.problem], finding.eventId, finding.detail);
  }
  for (const id of observed.expectDrained ? observed.eventIds : []) {
    const record = records.get(id);
    const live = observed.ingress.filter((m) => mentionsEvent(m, id)).length;
    if (record !== undefined && isTerminal(record.status) && live > 0)
      fail(Invariant.QUIESCENCE, id, `${id}: ${record.status} with ${live} live message(s)`);
  }

  const callsByEvent = groupBy(observed.calls, (call) => call.eventId);
  const guarantees = [
    ...checkBoundedWork(
      [...callsByEvent].map(([eventId, calls]) => ({
        eventId,
        calls: calls.length,
        takeovers: observed.traces.takeovers.get(eventId) ?? 0,
      })),
      records,
    ),
    ...checkAttemptsCountCalls(
      observed.eventIds.map((eventId) => ({
        eventId,
        calls: callsByEvent.get(eventId)?.length ?? 0,
        claims: observed.traces.claims.get(eventId) ?? 0,
        results: observed.traces.results.get(eventId) ?? 0,
      })),
      records,
    ),
    ...checkRecordedFromFirstSight(observed.traces.acknowledged),
    ...checkOnlyAcceptedPayloads(observed.calls, observed.accepted),
    ...checkNoDeadLetterForDelivered(records, deadLetters),
    ...checkConflictsCounted(records, observed.conflictsSent, deadLetters),
    ...checkForgedCopiesUnverified(records, observed.deadLetters, forged),
    ...checkCleanedCopies(
      records,
      (observed.cleaned?.removed ?? []).filter((m) => !forged.has(m.body)),
    ),
    ...checkCleanRemovalsAudited(
      records,
      cleanRemovalsOf(observed.cleaned?.removed ?? []),
      observed.cleaned?.excused ?? new Set(),
    ),
  ];
  for (const finding of guarantees)
    fail(INVARIANT_OF[finding.problem], finding.eventId, finding.detail);
  for (const finding of observed.views === undefined ? [] : checkInertRenderings(observed.views))
    fail(INVARIANT_OF_RENDERING[finding.problem], undefined, finding.detail);
  const countOf = (problem: GuaranteeProblem) =>
    guarantees.filter((finding) => finding.problem === problem).length;

  let overlappingAttempts = 0;
  for (const [id, calls] of callsByEvent) {
    if (!known.has(id)) {
      fail(Invariant.STABLE_IDENTITY, id, `${calls.length} call(s) for an event never submitted`);
      continue;
    }
    for (const call of calls) {
      if (call.idempotencyKey !== id)
        fail(Invariant.IDEMPOTENCY_KEY, id, `${id}: call carried key ${call.idempotencyKey}`);
      if (call.headerEventId !== id)
        fail(Invariant.STABLE_IDENTITY, id, `${id}: call named event ${call.headerEventId}`);
    }
    const overlaps = countOverlaps(calls, observed.targetTimeoutMs);
    overlappingAttempts += overlaps;
    if (overlaps > 0)
      fail(Invariant.NO_OVERLAP, id, `${id}: ${overlaps} overlapping pair(s) of calls`);

    const record = records.get(id);
    if (record === undefined) {
      fail(Invariant.NOTHING_LOST, id, `${id}: called ${calls.length} time(s) but has no record`);
      continue;
    }
    if (record.status === "delivered" && !calls.some((call) => call.reply === Reply.OK))
      fail(Invariant.NOTHING_LOST, id, `${id}: delivered, but the receiver never answered 2xx`);
  }

  const count = (status: string) =>
    observed.eventIds.filter((id) => records.get(id)?.status === status).length;
  return {
    delivered: count("delivered"),
    rejected: count("rejected"),
    deadLettered: count("dead_lettered"),
    unfinished,
    lost,
    targetCalls: observed.calls.length,
    leaseTakeovers: [...observed.traces.takeovers.values()].reduce((sum, n) => sum + n, 0),
    overlappingAttempts,
    maxAttemptsExceeded: countOf(GuaranteeProblem.OVER_BUDGET),
    foreignPayloadCalls: countOf(GuaranteeProblem.FOREIGN_PAYLOAD_CALLED),
    violations,
  };
};
