import { effectiveDeadlineMs } from "../../lib/core/decide.js";
import type { Envelope } from "../../lib/core/envelope.js";
import { DEFAULT_POLICY, resolvePolicy } from "../../lib/core/policy.js";
import type { ReceivedDeadLetter } from "../../lib/core/ports.js";
import type { EventRecord } from "../../lib/core/record.js";
import { isTerminal } from "../../lib/core/status.js";
import { naturalTargetKey } from "../../lib/core/target-key.js";
import { checkEndState, EndStateProblem } from "../support/end-state-checks.js";
import {
  checkAttemptsCountCalls,
  checkBoundedWork,
  checkCleanedCopies,
  checkCleanRemovalsAudited,
  checkConflictsCounted,
  checkNoDeadLetterForDelivered,
  checkNoForgedCopyMoved,
  checkOnlyAcceptedPayloads,
  checkRecordedFromFirstSight,
  cleanRemovalsOf,
  GuaranteeProblem,
  payloadFingerprint,
} from "../support/guarantee-checks.js";
import {
  checkInertRenderings,
  type OperatorViews,
  RenderingProblem,
} from "../support/operator-renderings.js";
import { type ControlInvariant, checkControls } from "./control-invariants.js";
import type { QueuedMessage } from "./memory-queue.js";
import type { ClaimTrace, SimulationTrace } from "./trace.js";

/** The guarantees of DESIGN.md, as the simulation checks them. */
export const Invariant = {
  IDEMPOTENCY_KEY: "1-idempotency-key",
  NOTHING_LOST: "2-nothing-lost",
  STABLE_IDENTITY: "3-stable-identity",
  BOUNDED_WORK: "4-bounded-work",
  ATTEMPTS_COUNT_CALLS: "4-attempts-count-the-calls",
  RECORDED_FROM_FIRST_SIGHT: "2-recorded-from-first-sight",
  NO_CALL_AFTER_DEADLINE: "4-no-call-after-deadline",
  NO_CALL_BEFORE_NOT_BEFORE: "4-no-call-before-not-before",
  NO_OVERLAP: "5-no-overlapping-attempts",
  LEASE_COVERS_CALL: "5-lease-covers-call",
  DRAIN_LOSES_NOTHING: "6-drain-loses-nothing",
  REDRIVE_AUDITED: "7-redrive-keeps-identity-and-audit",
  DEAD_LETTER_KEEPS_BODY: "7-dead-letter-keeps-the-producer-body",
  ONLY_ACCEPTED_ENVELOPE: "8-only-the-accepted-envelope-is-called",
  NO_DEAD_LETTER_FOR_DELIVERED: "9-no-dead-letter-for-a-delivered-event",
  CONFLICTS_COUNTED: "9-conflicting-resubmissions-counted",
  QUIESCENCE: "quiescence",
  LEGAL_TRANSITIONS: "legal-status-transitions",
  TARGET_CONCURRENCY: "10-target-concurrency-limit",
  DEFERRED_NEVER_LOST: "10-a-deferred-event-is-never-lost",
  THROTTLED_NEVER_CHARGED: "10-a-throttled-event-is-never-charged-an-attempt",
  DEFERRAL_WITHIN_DEADLINE: "10-a-deferral-never-passes-the-deadline",
  HEALTHY_BREAKER_CLOSED: "10-a-healthy-target's-breaker-never-opens",
  FORGED_COPY_NEVER_MOVED: "8-a-forged-dead-letter-copy-is-never-redriven",
  REMOVALS_AUDITED: "9-dlq-clean-audits-exactly-the-removals",
  INERT_OUTPUT: "9-operator-output-is-inert",
  EXACT_JSON: "9-json-output-is-exact",
} as const;
export type Invariant = (typeof Invariant)[keyof typeof Invariant];

/**
 * The guarantee each shared end-of-run finding breaks, for the simulation and the chaos run alike
 * (test/support/end-state-checks.ts, test/support/guarantee-checks.ts).
 */
export const INVARIANT_OF: Readonly<Record<EndStateProblem | GuaranteeProblem, Invariant>> = {
  [EndStateProblem.NOT_TERMINAL]: Invariant.NOTHING_LOST,
  [EndStateProblem.NO_DEAD_LETTER_COPY]: Invariant.NOTHING_LOST,
  [EndStateProblem.COPY_IDENTITY]: Invariant.STABLE_IDENTITY,
  [EndStateProblem.RECORD_IDENTITY]: Invariant.STABLE_IDENTITY,
  [EndStateProblem.COPY_BODY]: Invariant.DEAD_LETTER_KEEPS_BODY,
  [GuaranteeProblem.OVER_BUDGET]: Invariant.BOUNDED_WORK,
  [GuaranteeProblem.FOREIGN_PAYLOAD_CALLED]: Invariant.ONLY_ACCEPTED_ENVELOPE,
  [GuaranteeProblem.DEAD_LETTER_FOR_DELIVERED]: Invariant.NO_DEAD_LETTER_FOR_DELIVERED,
  [GuaranteeProblem.SILENT_CONFLICT]: Invariant.CONFLICTS_COUNTED,
  [GuaranteeProblem.ATTEMPTS_NOT_CALLS]: Invariant.ATTEMPTS_COUNT_CALLS,
  [GuaranteeProblem.UNRECORDED_AT_ACK]: Invariant.RECORDED_FROM_FIRST_SIGHT,
  [GuaranteeProblem.FORGED_COPY_MOVED]: Invariant.FORGED_COPY_NEVER_MOVED,
  [GuaranteeProblem.REMOVALS_NOT_AUDITED]: Invariant.REMOVALS_AUDITED,
};

/** The guarantee each rendering finding breaks (test/support/operator-renderings.ts). */
export const INVARIANT_OF_RENDERING: Readonly<Record<RenderingProblem, Invariant>> = {
  [RenderingProblem.CONTROL_CHARACTER]: Invariant.INERT_OUTPUT,
  [RenderingProblem.JSON_NOT_EXACT]: Invariant.EXACT_JSON,
};

export interface Violation {
  readonly seed: number;
  readonly invariant: Invariant | ControlInvariant;
  readonly detail: string;
}

/** The end state of a run, as the checks see it. */
export interface FinalState {
  readonly seed: number;
  readonly submitted: readonly Envelope[];
  /** The exact body each event was submitted with, by id. */
  readonly bodies: ReadonlyMap<string, string>;
  readonly records: ReadonlyMap<string, EventRecord>;
  readonly ingress: readonly QueuedMessage[];
  readonly deadLetters: readonly QueuedMessage[];
  readonly trace: SimulationTrace;
  /** Largest clock skew of any worker, either way. */
  readonly skewBoundMs: number;
  /** The limit every target was held to, if any. */
  readonly maxConcurrentCalls?: number | undefined;
  /** Who the simulated operator is, as written in redrive audit entries. */
  readonly operator: string;
  /** Store writes that broke the state machine of lib/core/status.ts. */
  readonly illegalTransitions: readonly string[];
  /** Conflicting resubmissions the hostile producer sent, by event id. */
  readonly conflictsSent: ReadonlyMap<string, number>;
  /** Places (see {@link placeOf}) whose receiver never fails a call: no breaker may open there. */
  readonly healthyPlaces: ReadonlySet<string>;
  /** The bodies of the forged copies the hostile producer sent to the dead-letter queue. */
  readonly forgedDeadLetterBodies: ReadonlySet<string>;
  /** The copies `dlq clean` runs really removed from the queue, as they were received. */
  readonly cleaned: readonly ReceivedDeadLetter[];
  /** What the operator can look at once the run is over. */
  readonly views: OperatorViews;
}

/**
 * Where a target's calls go, worked out apart from the key code it checks: the host as DNS reads
 * it (case and a trailing dot do not matter) and the port, default ports written.
 */
export const placeOf = (target: Envelope["target"]): string => {
  if (target.type !== "http") return naturalTargetKey(target);
  const url = new URL(target.url);
  const port = url.port === "" ? (url.protocol === "https:" ? "443" : "80") : url.port;
  return `${url.protocol}//${url.hostname.toLowerCase().replace(/\.+$/, "")}:${port}`;
};

const countBy = <T>(items: readonly T[], key: (item: T) => string): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
};

/**
 * The instant (true virtual time) before which the lease of `claim` is live for every worker:
 * another worker sees it expire once its own clock passes `leaseExpiresAt`, and its clock may
 * run up to the skew bound ahead of true time.
 */
const guaranteedLeaseEnd = (claim: ClaimTrace, skewBoundMs: number): number =>
  claim.leaseExpiresAt - skewBoundMs;

/** Checks every guarantee against a finished run; returns the violations (empty when sound). */
export const checkInvariants = (state: FinalState): Violation[] => {
  const violations: Violation[] = [];
  const fail = (invariant: Invariant | ControlInvariant, detail: string) =>
    violations.push({ seed: state.seed, invariant, detail });
  const { trace, records } = state;
  // A forged copy is the hostile producer's message, not Ricochet's word: the checks of what
  // Ricochet's copies say are about the others (the forgeries have checks of their own).
  const forged = state.forgedDeadLetterBodies;
  const deadLetters = state.deadLetters.filter((m) => !forged.has(m.body));
  const submittedIds = new Set(state.submitted.map((e) => e.eventId));
  const claimOf = new Map(trace.claims.map((c) => [`${c.eventId}#${c.attempt}`, c]));

  // The store only moves an event the way the documented state machine allows.
  for (const move of state.illegalTransitions) fail(Invariant.LEGAL_TRANSITIONS, move);

  // 1 and 3: every call carried the submitted id, as event id and as Idempotency-Key.
  for (const call of trace.calls) {
    if (call.origin === undefined || !submittedIds.has(call.origin)) {
      fail(Invariant.STABLE_IDENTITY, `call for ${call.eventId} has no submitted origin`);
      continue;
    }
    if (call.idempotencyKey !== call.origin)
      fail(Invariant.IDEMPOTENCY_KEY, `${call.origin}: call carried key ${call.idempotencyKey}`);
    if (call.eventId !== call.origin)
      fail(Invariant.STABLE_IDENTITY, `${call.origin}: attempted as ${call.eventId}`);
  }

  // 2, 3, 4, 8 and 9: the end state, the work done, and what the target and operators saw.
  const callsPerEvent = countBy(trace.calls, (c) => c.eventId);
  const takeoversPerEvent = countBy(
    trace.claims.filter((c) => c.takeover),
    (c) => c.eventId,
  );
  const claimsPerEvent = countBy(trace.claims, (c) => c.eventId);
  const resultsPerEvent = countBy(trace.results, (id) => id);
  const findings = [
    ...checkEndState({
      eventIds: state.submitted.map((e) => e.eventId),
      records,
      ingress: state.ingress,
      deadLetters,
      bodies: state.bodies,
    }),
    ...checkBoundedWork(
      state.submitted.map(({ eventId }) => ({
        eventId,
        calls: callsPerEvent.get(eventId) ?? 0,
        takeovers: takeoversPerEvent.get(eventId) ?? 0,
      })),
      records,
    ),
    ...checkAttemptsCountCalls(
      state.submitted.map(({ eventId }) => ({
        eventId,
        calls: callsPerEvent.get(eventId) ?? 0,
        claims: claimsPerEvent.get(eventId) ?? 0,
        results: resultsPerEvent.get(eventId) ?? 0,
      })),
      records,
    ),
    ...checkRecordedFromFirstSight(trace.acknowledged),
    ...checkOnlyAcceptedPayloads(
      trace.calls,
      new Map(state.submitted.map((e) => [e.eventId, payloadFingerprint(e.payload)])),
    ),
    ...checkNoDeadLetterForDelivered(records, deadLetters),
    ...checkCleanedCopies(
      records,
      state.cleaned.filter((m) => !forged.has(m.body)),
    ),
    ...checkConflictsCounted(records, state.conflictsSent, deadLetters),
    ...checkNoForgedCopyMoved(
      trace.redriven.map((body) => ({ body })),
      forged,
    ),
    ...checkCleanRemovalsAudited(records, cleanRemovalsOf(state.cleaned), trace.cleanExcused),
  ];
  for (const finding of findings) fail(INVARIANT_OF[finding.problem], finding.detail);
  for (const finding of checkInertRenderings(state.views))
    fail(INVARIANT_OF_RENDERING[finding.problem], finding.detail);

  // 4: no call after the deadline.
  for (const envelope of state.submitted) {
    const id = envelope.eventId;
    const record = records.get(id);
    if (record === undefined) continue;
    const policy = resolvePolicy(DEFAULT_POLICY, envelope.policy);
    const deadline = effectiveDeadlineMs(envelope.deadline, policy, Date.parse(record.createdAt));
    if (deadline === undefined) continue;
    for (const call of trace.calls) {
      if (call.eventId === id && call.workerStartMs > deadline)
        fail(
          Invariant.NO_CALL_AFTER_DEADLINE,
          `${id}: attempt ${call.attempt} started ${call.workerStartMs - deadline} ms after the deadline`,
        );
    }
  }

  // 4: no call before the producer's notBefore, judged by the caller's clock like the deadline.
  for (const envelope of state.submitted) {
    if (envelope.notBefore === undefined) continue;
    const notBeforeMs = Date.parse(envelope.notBefore);
    for (const call of trace.calls) {
      if (call.eventId === envelope.eventId && call.workerStartMs < notBeforeMs)
        fail(
          Invariant.NO_CALL_BEFORE_NOT_BEFORE,
          `${envelope.eventId}: attempt ${call.attempt} started ${notBeforeMs - call.workerStartMs} ms before notBefore`,
        );
    }
  }

  // 10: a deferral (breaker open, target over its limits) spends no attempt — the bounded-work
  // check above counts attempts against calls — ends like any event, and never waits past the
  // deadline (the deferring worker's clock may run ahead of true time by the skew bound).
  const deferred = new Map(trace.deferrals.map((d) => [d.eventId, d]));
  // A throttled event (held back by a breaker, a declared limit or a learned one) whose record
  // counts more attempts than its calls was charged for being held back.
  for (const finding of findings) {
    if (finding.problem === GuaranteeProblem.ATTEMPTS_NOT_CALLS && deferred.has(finding.eventId))
      fail(Invariant.THROTTLED_NEVER_CHARGED, `${finding.detail}, after being deferred`);
  }
  for (const envelope of state.submitted) {
    const id = envelope.eventId;
    if (!deferred.has(id)) continue;
    const record = records.get(id);
    if (record === undefined || !isTerminal(record.status)) {
      fail(
        Invariant.DEFERRED_NEVER_LOST,
        `${id}: deferred, then ended ${record?.status ?? "unrecorded"}`,
      );
      continue;
    }
    const policy = resolvePolicy(DEFAULT_POLICY, envelope.policy);
    const deadline = effectiveDeadlineMs(envelope.deadline, policy, Date.parse(record.createdAt));
    if (deadline === undefined) continue;
    for (const deferral of trace.deferrals) {
      const lateMs = deferral.untilMs - deadline - state.skewBoundMs;
      if (deferral.eventId === id && lateMs > 0)
        fail(
          Invariant.DEFERRAL_WITHIN_DEADLINE,
          `${id}: deferred to ${lateMs} ms past its deadline`,
        );
    }
  }

  // 10: only what a call says about its target counts against the target's breaker, so a
  // receiver that never fails a call is never turned away from, whatever its producers ask for.
  const placeOfEvent = new Map(state.submitted.map((e) => [e.eventId, placeOf(e.target)]));
  for (const deferral of trace.deferrals) {
    const place = placeOfEvent.get(deferral.eventId);
    if (deferral.byBreaker && place !== undefined && state.healthyPlaces.has(place))
      fail(
        Invariant.HEALTHY_BREAKER_CLOSED,
        `${deferral.eventId}: deferred by the open breaker of ${place}, which never failed a call`,
      );
  }

  // 5: no call starts while another call's lease is live; an honest call fits in its lease.
  const byEvent = new Map<string, typeof trace.calls>();
  for (const call of trace.calls)
    byEvent.set(call.eventId, [...(byEvent.get(call.eventId) ?? []), call]);
  for (const [id, calls] of byEvent) {
    for (const a of calls) {
      const claim = claimOf.get(`${id}#${a.attempt}`);
      if (claim === undefined) {
        fail(Invariant.NO_OVERLAP, `${id}: attempt ${a.attempt} called without a claim`);
        continue;
      }
      const leaseEnd = guaranteedLeaseEnd(claim, state.skewBoundMs);
      if (a.honouredTimeout && a.endMs !== undefined && a.endMs > leaseEnd)
        fail(
          Invariant.LEASE_COVERS_CALL,
          `${id}: attempt ${a.attempt} ended ${a.endMs - leaseEnd} ms after its lease`,
        );
      for (const b of calls) {
        if (b === a || b.startMs < a.startMs || (b.startMs === a.startMs && b.attempt <= a.attempt))
          continue;
        const aEnd = a.endMs ?? Number.POSITIVE_INFINITY;
        if (b.startMs < aEnd && b.startMs < leaseEnd)
          fail(
            Invariant.NO_OVERLAP,
            `${id}: attempt ${b.attempt} (${b.worker}) started during attempt ${a.attempt} (${a.worker}) ` +
              `while its lease was live (${leaseEnd - b.startMs} ms left)`,
          );
      }
    }
  }

  // 10: no target had more calls in flight than its limit. A stalled call (one that outlived its
  // own timeout) may outlive its slot's lease too: that is the stated tolerance, not counted.
  // Counted by where the calls went, not by key: a key per spelling would hide the excess.
  if (state.maxConcurrentCalls !== undefined) {
    const keyOf = new Map(state.submitted.map((e) => [e.eventId, placeOf(e.target)]));
    const edges = new Map<string, { at: number; delta: number }[]>();
    for (const call of trace.calls) {
      if (!call.honouredTimeout) continue;
      const key = keyOf.get(call.eventId) ?? "?";
      const list = edges.get(key) ?? [];
      list.push({ at: call.startMs, delta: 1 }, { at: call.endMs ?? Infinity, delta: -1 });
      edges.set(key, list);
    }
    for (const [key, list] of edges) {
      list.sort((a, b) => a.at - b.at || a.delta - b.delta);
      let inFlight = 0;
      for (const edge of list) {
        inFlight += edge.delta;
        if (inFlight > state.maxConcurrentCalls) {
          fail(
            Invariant.TARGET_CONCURRENCY,
            `${key}: ${inFlight} calls in flight at ${edge.at}, limit ${state.maxConcurrentCalls}`,
          );
          break;
        }
      }
    }
  }

  // 6: a drained message spent no attempt and was not deleted.
  for (const invocation of trace.invocations) {
    const inBatch = countBy(invocation.batch, (k) => k);
    const drained = countBy(invocation.drained, (k) => k);
    const claimed = countBy(invocation.claimed, (k) => k);
    for (const [key, count] of drained) {
      const started = (inBatch.get(key) ?? 0) - count;
      if ((claimed.get(key) ?? 0) > started)
        fail(
          Invariant.DRAIN_LOSES_NOTHING,
          `${key}: drained by invocation ${invocation.id} but claimed`,
        );
      const receipt = invocation.receipts.get(key);
      if (started === 0 && receipt !== undefined && invocation.deleted.includes(receipt))
        fail(
          Invariant.DRAIN_LOSES_NOTHING,
          `${key}: drained by invocation ${invocation.id} but deleted`,
        );
    }
  }

  // 7: redrives keep the event's identity and leave an audit entry.
  for (const report of trace.redrives) {
    for (const moved of report.moved) {
      const record = records.get(moved.eventId);
      if (!submittedIds.has(moved.eventId))
        fail(Invariant.REDRIVE_AUDITED, `redrive moved unknown event ${moved.eventId}`);
      if (record === undefined) {
        fail(Invariant.REDRIVE_AUDITED, `${moved.eventId}: redriven, then its record vanished`);
        continue;
      }
      if (
        !record.redrives.some(
          (r) => r.by === state.operator && r.attemptBudget === moved.attemptBudget,
        )
      )
        fail(
          Invariant.REDRIVE_AUDITED,
          `${moved.eventId}: moved with budget ${moved.attemptBudget}, no audit entry`,
        );
      if (record.generation < moved.generation)
        fail(Invariant.REDRIVE_AUDITED, `${moved.eventId}: record generation went back`);
    }
  }
  for (const record of records.values()) {
    for (const audit of record.redrives) {
      if (audit.by !== state.operator || audit.attemptBudget <= audit.previousAttempts)
        fail(Invariant.REDRIVE_AUDITED, `${record.eventId}: audit entry ${JSON.stringify(audit)}`);
      // Dead-lettered and rejected events are redriven; so are events stranded mid-flight by a
      // crash loop (the store only allows that once the lease has expired). Never a delivery.
      if (audit.previousStatus === "delivered")
        fail(Invariant.REDRIVE_AUDITED, `${record.eventId}: redriven from ${audit.previousStatus}`);
    }
  }
  // 11 and 12: the operator's cancels and replays.
  for (const finding of checkControls(trace, records, deadLetters))
    fail(finding.invariant, finding.detail);
  return violations;
};
