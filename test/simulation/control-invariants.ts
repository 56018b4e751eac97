import { DeadLetterReason } from "../../lib/core/decide.js";
import { AuditAction, type EventRecord } from "../../lib/core/record.js";
import { EventStatus } from "../../lib/core/status.js";
import { deadLetterCopies, type LeftMessage } from "../support/end-state-checks.js";
import type { SimulationTrace } from "./trace.js";

/*
 * The guarantees of an operator's cancel and replay (lib/core/cancel-rule.ts,
 * lib/core/replay-rule.ts), checked against a finished run:
 * - a cancel stops the event: no call starts after the cancel was recorded (an attempt in flight
 *   then may finish: a cancel is refused while one is), and the event ends `cancelled` with its
 *   audit entry, never dead-lettered at the generation it was cancelled at, never delivered since;
 * - a replay sends one more generation: every call from the replay on carries its number as
 *   `Ricochet-Replay`, none before it does, the record counts it and audits it, and a replayed
 *   event that ends delivered was delivered by a call of its last replay.
 */

export const ControlInvariant = {
  CANCEL_STOPS_CALLS: "11-no-call-after-a-cancel",
  CANCEL_IS_FINAL: "11-a-cancelled-event-ends-cancelled-and-audited",
  REPLAY_ONE_GENERATION: "12-a-replay-sends-one-more-generation",
} as const;
export type ControlInvariant = (typeof ControlInvariant)[keyof typeof ControlInvariant];

export interface ControlFinding {
  readonly invariant: ControlInvariant;
  readonly detail: string;
}

const auditCount = (record: EventRecord, action: AuditAction): number =>
  (record.audit ?? []).filter((a) => a.action === action).length;

/** Checks the run's cancels and replays; returns what broke (empty when sound). */
export const checkControls = (
  trace: SimulationTrace,
  records: ReadonlyMap<string, EventRecord>,
  deadLetters: readonly LeftMessage[],
): ControlFinding[] => {
  const findings: ControlFinding[] = [];
  const fail = (invariant: ControlInvariant, detail: string) =>
    findings.push({ invariant, detail });
  const copies = deadLetterCopies(deadLetters);

  for (const cancel of trace.cancels) {
    const id = cancel.eventId;
    for (const call of trace.calls)
      if (call.eventId === id && call.startMs > cancel.trueAtMs)
        fail(
          ControlInvariant.CANCEL_STOPS_CALLS,
          `${id}: attempt ${call.attempt} started ${call.startMs - cancel.trueAtMs} ms after the cancel`,
        );
    const record = records.get(id);
    if (record?.status !== EventStatus.CANCELLED) {
      fail(ControlInvariant.CANCEL_IS_FINAL, `${id}: cancelled, ended ${record?.status}`);
      continue;
    }
    if (auditCount(record, AuditAction.CANCELLED) !== 1)
      fail(ControlInvariant.CANCEL_IS_FINAL, `${id}: cancelled without exactly one audit entry`);
    for (const copy of copies)
      if (
        copy.eventId === id &&
        copy.reason !== DeadLetterReason.INVALID_ENVELOPE &&
        copy.generation >= record.generation
      )
        fail(
          ControlInvariant.CANCEL_IS_FINAL,
          `${id}: cancelled at generation ${record.generation}, dead-lettered (${copy.reason}) at ${copy.generation}`,
        );
  }

  const replaysOf = new Map<string, number[]>();
  for (const replay of trace.replays)
    replaysOf.set(replay.eventId, [...(replaysOf.get(replay.eventId) ?? []), replay.trueAtMs]);
  const everReplayed = new Set(
    trace.calls.filter((c) => c.replay !== undefined).map((c) => c.eventId),
  );
  for (const id of new Set([...replaysOf.keys(), ...everReplayed])) {
    const times = (replaysOf.get(id) ?? []).sort((a, b) => a - b);
    const record = records.get(id);
    if (record === undefined) continue;
    if (
      (record.replays ?? 0) !== times.length ||
      auditCount(record, AuditAction.REPLAYED) !== times.length
    )
      fail(
        ControlInvariant.REPLAY_ONE_GENERATION,
        `${id}: ${times.length} replay(s) recorded, the record counts ${record.replays ?? 0} with ${auditCount(record, AuditAction.REPLAYED)} audit entries`,
      );
    for (const call of trace.calls) {
      if (call.eventId !== id) continue;
      const expected = times.filter((at) => at < call.startMs).length;
      if ((call.replay ?? 0) !== expected)
        fail(
          ControlInvariant.REPLAY_ONE_GENERATION,
          `${id}: attempt ${call.attempt} carried Ricochet-Replay ${call.replay ?? "none"}, ${expected} replay(s) recorded before it`,
        );
    }
    const last = times.length;
    if (
      last > 0 &&
      record.status === EventStatus.DELIVERED &&
      !trace.calls.some((c) => c.eventId === id && c.replay === last && c.acted)
    )
      fail(
        ControlInvariant.REPLAY_ONE_GENERATION,
        `${id}: delivered after replay ${last}, but no call of that replay reached the receiver`,
      );
  }
  return findings;
};
