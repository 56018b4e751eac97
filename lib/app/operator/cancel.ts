import { judgeCancel } from "../../core/cancel-rule.js";
import { errorMessage } from "../../core/errors.js";
import type { CallerIdentity, EventStore } from "../../core/ports.js";
import type { Clock } from "../../core/random.js";
import { AuditAction, type EventRecord } from "../../core/record.js";
import type { EventStatus } from "../../core/status.js";
import {
  auditStamper,
  type FailedEvent,
  operatorAudit,
  type RefusedEvent,
} from "./operator-action.js";
import { type CancelRequestInput, parseCancelRequest } from "./operator-request.js";

/*
 * Cancel: a waiting event becomes `cancelled`, with an audit entry. Nothing is sent or deleted:
 * the message still on its way for the event is dropped by the orchestrator when it arrives (its
 * claim finds the record terminal). The write is conditional on the status and generation the
 * rule judged, so a claim or a result landing in between wins and the cancel is judged again.
 */

/** What a cancel needs. */
export interface CancelDeps {
  readonly store: EventStore;
  readonly clock: Clock;
  /** How long a cancelled record is kept (its TTL), in seconds. */
  readonly retentionSeconds: number;
  /** Who AWS says cancels, for the audit entries' `caller` (see redrive's). */
  readonly callerIdentity?: CallerIdentity | undefined;
}

interface CancelledEvent {
  readonly eventId: string;
  readonly previousStatus: EventStatus;
}

/** What a cancel did (or, with `dryRun`, would do). */
export interface CancelReport {
  readonly dryRun: boolean;
  readonly cancelled: CancelledEvent[];
  readonly refused: RefusedEvent[];
  readonly failed: FailedEvent[];
}

/** Reads and writes per event: a record that keeps moving under the cancel is reported failed. */
const MAX_TRIES = 3;

/**
 * Cancels the named events that are still waiting (pending, scheduled, or waiting for a retry), recording
 * who (`by`, and `caller` as `deps.callerIdentity` reports it) and why on each record. Delivered, finished and
 * in-flight events are refused with the reason; see lib/core/cancel-rule.ts.
 *
 * @throws InvalidRequestError when the request is invalid (nothing is touched).
 */
export const cancelEvents = async (
  deps: CancelDeps,
  input: Omit<CancelRequestInput, "action">,
): Promise<CancelReport> => {
  const request = parseCancelRequest({ ...input, action: "cancel" });
  const stamps = auditStamper(deps.callerIdentity, deps.clock);
  const report: CancelReport = { dryRun: request.dryRun, cancelled: [], refused: [], failed: [] };
  for (const eventId of new Set(request.eventIds)) {
    try {
      let record: EventRecord | undefined = await deps.store.get(eventId);
      for (let tries = 1; ; tries += 1) {
        const verdict = judgeCancel(record, deps.clock());
        if (verdict.kind === "refuse") {
          report.refused.push({ eventId, reason: verdict.reason });
          break;
        }
        const { status, generation } = verdict.record;
        if (request.dryRun) {
          report.cancelled.push({ eventId, previousStatus: status });
          break;
        }
        const { nowMs, stamp } = await stamps.now(request.by);
        const written = await deps.store.recordCancel({
          eventId,
          expectedStatus: status,
          generation,
          audit: operatorAudit(stamp, AuditAction.CANCELLED, request.reason, status),
          nowMs,
          retentionSeconds: deps.retentionSeconds,
        });
        if (written.kind === "recorded") {
          report.cancelled.push({ eventId, previousStatus: status });
          break;
        }
        if (tries === MAX_TRIES) {
          report.failed.push({
            eventId,
            error: `the event kept moving during the cancel (now ${written.record?.status ?? "missing"}); try again`,
          });
          break;
        }
        record = written.record;
      }
    } catch (error) {
      report.failed.push({ eventId, error: errorMessage(error) });
    }
  }
  return report;
};
