import { type Envelope, parseEnvelope } from "../../core/envelope.js";
import { errorMessage, formatProblems } from "../../core/errors.js";
import { type RetryPolicy, resolvePolicy } from "../../core/policy.js";
import {
  applyPolicyLimits,
  DEFAULT_POLICY_LIMITS,
  type PolicyLimits,
} from "../../core/policy-limits.js";
import type { CallerIdentity, EventStore, IngressQueue } from "../../core/ports.js";
import type { Clock } from "../../core/random.js";
import { AuditAction, type EventRecord } from "../../core/record.js";
import { judgeReplay } from "../../core/replay-rule.js";
import { EventStatus } from "../../core/status.js";
import { replayTraceContext, type TraceContext } from "../../core/trace-context.js";
import {
  auditStamp,
  auditStamper,
  type FailedEvent,
  operatorAudit,
  type RefusedEvent,
} from "./operator-action.js";
import { parseReplayRequest, type ReplayRequestInput } from "./operator-request.js";
import { redriveBudget } from "./redrive-budget.js";

/*
 * Replay: a delivered event is sent again — the "resend" webhook platforms offer when a receiver
 * lost data. The same envelope goes out as the next generation with a fresh budget (or the one
 * asked for), and every call of that generation carries `Idempotency-Key: <event id>` as always,
 * plus `Ricochet-Replay: <n>` (docs/design-notes.md, "Replay keeps the key").
 *
 * The steps mirror a redrive's (lib/app/operator/redrive.ts), for the same reasons:
 *   1. SEND the body on the internal queue at generation g+1 (g: the delivered record's).
 *   2. RECORD the replay, conditional on the record still delivered at g: pending at g+1, with
 *      the budget, the replay count and the audit entry.
 * - Killed after 1: the record is delivered at g; the copy is ahead of it, and with no holder to
 *   record it, the orchestrator drops it after a few looks (lib/core/ahead-message.ts). Nothing
 *   was called; the operator replays again.
 * - The write answers `conflict`: another replay recorded g+1 first (its copy and ours carry the
 *   same generation; the claim lets one attempt at a time, and once the event is delivered again
 *   the other is a duplicate), or the event is no longer delivered. Either way ours is reported
 *   failed, never as a second replay.
 */

/** What a replay needs. */
export interface ReplayDeps {
  readonly store: EventStore;
  readonly ingressQueue: IngressQueue;
  readonly clock: Clock;
  /** The deployment's policy, for the fresh budget and the deadline (an envelope's override wins). */
  readonly defaultPolicy: RetryPolicy;
  /** The deployment's bounds on an envelope's override; default {@link DEFAULT_POLICY_LIMITS}. */
  readonly policyLimits?: PolicyLimits | undefined;
  /** Who AWS says replays, for the audit entries' `caller` (see redrive's). */
  readonly callerIdentity?: CallerIdentity | undefined;
}

interface ReplayedEvent {
  readonly eventId: string;
  /** The generation the replayed message carries. */
  readonly generation: number;
  /** Attempts allowed in total after the replay. */
  readonly attemptBudget: number;
  /** The replay's number, sent as `Ricochet-Replay` (1 for the first). */
  readonly replay: number;
}

/** What a replay did (or, with `dryRun`, would do). */
export interface ReplayReport {
  readonly dryRun: boolean;
  readonly replayed: ReplayedEvent[];
  readonly refused: RefusedEvent[];
  readonly failed: FailedEvent[];
}

/** The envelopes offered, by event id, each with the exact body to send. */
const envelopesById = (
  offered: readonly (string | Record<string, unknown>)[],
  report: ReplayReport,
): Map<string, { readonly envelope: Envelope; readonly body: string }> => {
  const found = new Map<string, { readonly envelope: Envelope; readonly body: string }>();
  offered.forEach((item, index) => {
    const body = typeof item === "string" ? item : JSON.stringify(item);
    const parsed = parseEnvelope(body);
    if (parsed.ok) found.set(parsed.envelope.eventId, { envelope: parsed.envelope, body });
    else
      report.failed.push({
        eventId: parsed.eventId ?? `envelopes[${index}]`,
        error: `invalid envelope: ${formatProblems(parsed.problems)}`,
      });
  });
  return found;
};

/** The trace a replay's message carries: that of the event's last traced attempt. */
const replayTrace = (record: EventRecord, generation: number): TraceContext | undefined =>
  replayTraceContext(
    record.history.findLast((entry) => entry.traceId !== undefined)?.traceId,
    record.eventId,
    generation,
  );

/**
 * Replays the named delivered events with the envelopes given for them, each checked against
 * the digest its record keeps. Events not delivered, past their deadline, or given another
 * envelope are refused with the reason; see lib/core/replay-rule.ts.
 *
 * @throws InvalidRequestError when the request is invalid (nothing is touched).
 */
export const replayEvents = async (
  deps: ReplayDeps,
  input: Omit<ReplayRequestInput, "action">,
): Promise<ReplayReport> => {
  const request = parseReplayRequest({ ...input, action: "replay" });
  const stamps = auditStamper(deps.callerIdentity, deps.clock);
  const report: ReplayReport = { dryRun: request.dryRun, replayed: [], refused: [], failed: [] };
  const offered = envelopesById(request.envelopes, report);
  for (const eventId of new Set(request.eventIds)) {
    const given = offered.get(eventId);
    if (given === undefined) {
      if (!report.failed.some((f) => f.eventId === eventId))
        report.refused.push({ eventId, reason: "no envelope was given for it" });
      continue;
    }
    try {
      const { envelope, body } = given;
      const { policy } = applyPolicyLimits(
        resolvePolicy(deps.defaultPolicy, envelope.policy),
        deps.policyLimits ?? DEFAULT_POLICY_LIMITS,
      );
      const verdict = judgeReplay(await deps.store.get(eventId), envelope, policy, deps.clock());
      if (verdict.kind === "refuse") {
        report.refused.push({ eventId, reason: verdict.reason });
        continue;
      }
      const { record } = verdict;
      const generation = record.generation + 1;
      const grant = {
        resetAttempts: request.extraAttempts === undefined,
        extraAttempts: request.extraAttempts,
      };
      const attemptBudget = redriveBudget(record, envelope, grant, deps);
      const replayed = { eventId, generation, attemptBudget, replay: (record.replays ?? 0) + 1 };
      if (request.dryRun) {
        report.replayed.push(replayed);
        continue;
      }
      // Asked before the copy leaves: a slow STS must not widen the gap between the send and
      // the record's write, in which the copy meets a record still at the old generation.
      const who = await stamps.caller();
      await deps.ingressQueue.send(body, { generation, trace: replayTrace(record, generation) }, 0);
      const nowMs = deps.clock();
      const written = await deps.store.recordReplay({
        eventId,
        generation,
        attemptBudget,
        audit: operatorAudit(
          auditStamp(request.by, nowMs, who),
          AuditAction.REPLAYED,
          request.reason,
          EventStatus.DELIVERED,
        ),
        nowMs,
      });
      if (written.kind === "conflict") {
        report.failed.push({
          eventId,
          error: `the record changed during the replay (now ${written.record?.status ?? "missing"} at generation ${written.record?.generation ?? "-"}); the copy sent is dropped`,
        });
        continue;
      }
      report.replayed.push(replayed);
    } catch (error) {
      report.failed.push({ eventId, error: errorMessage(error) });
    }
  }
  return report;
};
