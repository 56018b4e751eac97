import Table from "cli-table3";
import type { Command } from "commander";
import { describeCaller } from "../core/caller.js";
import { describeDeferral } from "../core/deferral.js";
import { shortDigest } from "../core/envelope-digest.js";
import { ResourceNotFoundError } from "../core/errors.js";
import type { EventRecord } from "../core/record.js";
import { EventStatus } from "../core/status.js";
import { formatSeconds } from "../core/time-format.js";
import { withAwsSession } from "./aws-session.js";
import { cellText, inertPair, inertRow, printResult, withJsonOption } from "./cli-support.js";
import { addResourceOptions, type ResourceFlags } from "./resources.js";

interface StatusFlags extends ResourceFlags {
  readonly json: boolean;
}

const plain = { style: { head: [] as string[], border: [] as string[] } };

/** The history's number for a run that made no call: it counted no attempt. */
const NO_CALL = "no call";

/**
 * The status as a person asks about it: a scheduled event says when it is due and how far off
 * that is (`scheduled, due 2030-01-01T06:00:00.000Z (in 2h 30m)`); a due time already passed
 * means a hop is on its way to the event's first attempt.
 */
export const describeStatus = (record: EventRecord, nowMs: number): string => {
  const dueMs = record.nextAttemptAt === undefined ? Number.NaN : Date.parse(record.nextAttemptAt);
  if (record.status !== EventStatus.SCHEDULED || Number.isNaN(dueMs)) return record.status;
  const seconds = (dueMs - nowMs) / 1000;
  const distance =
    seconds >= 1
      ? `in ${formatSeconds(seconds)}`
      : seconds > -1
        ? "now"
        : `${formatSeconds(-seconds)} ago`;
  return `${record.status}, due ${record.nextAttemptAt} (${distance})`;
};

/** The record, its attempt history and its redrives, as tables for a terminal. */
export const renderRecord = (record: EventRecord, nowMs: number = Date.now()): string => {
  const summary = new Table(plain);
  summary.push(
    ...[
      { event: record.eventId },
      { status: describeStatus(record, nowMs) },
      { attempts: `${record.attempts} of ${record.attemptBudget}` },
      { generation: record.generation },
      { target: record.targetSummary },
      { "next attempt": record.nextAttemptAt },
      // Said only while it lasts: the target turned the waiting event away (issue #36).
      { deferred: record.deferral === undefined ? "" : describeDeferral(record.deferral) },
      { "last outcome": record.lastOutcome?.message },
      { "dead-letter reason": record.deadLetterReason },
      { envelope: record.envelopeDigest === undefined ? "" : shortDigest(record.envelopeDigest) },
      {
        // Someone sent another envelope under this id; the first one is what is delivered.
        "conflicting resubmissions":
          record.conflicts === undefined
            ? ""
            : `${record.conflicts.count} (last ${record.conflicts.lastAt}, envelope ${shortDigest(record.conflicts.lastDigest)})`,
      },
      { created: record.createdAt },
      { updated: record.updatedAt },
    ].map(inertPair),
  );
  // Said only while it lasts: the attempt that decided it stopped before recording the end, and
  // the next takeover finishes it (the copy may already be in the dead-letter queue).
  if (record.pendingDeadLetter !== undefined) {
    const { reason, decidedAt } = record.pendingDeadLetter;
    summary.push(inertPair({ "dead-letter pending": `${reason}, decided ${decidedAt}` }));
  }
  // Said only when it happened: an operator sent the delivered event again (`ricochet replay`).
  if (record.replays !== undefined) summary.push(inertPair({ replays: record.replays }));
  // Said only when it happened: the producer asked for more than the deployment allows.
  if (record.policyAdjustments !== undefined && record.policyAdjustments.length > 0) {
    // One line per adjustment: each made inert, then laid out on its own line.
    summary.push({ "policy clamped": record.policyAdjustments.map(cellText).join("\n") });
  }
  const parts = [summary.toString()];
  if (record.history.length > 0) {
    const history = new Table({
      ...plain,
      head: ["#", "claimed", "finished", "outcome", "status", "error", "delay (s)", "message"],
    });
    for (const a of record.history) {
      history.push(
        inertRow([
          a.noCall === true ? NO_CALL : a.attempt,
          a.claimedAt,
          a.finishedAt,
          a.outcome,
          a.statusCode,
          a.errorCategory,
          a.delaySeconds,
          a.message,
        ]),
      );
    }
    parts.push("Attempts", history.toString());
  }
  if (record.redrives.length > 0) {
    const redrives = new Table({
      ...plain,
      head: ["at", "by", "caller", "reason", "previous status", "previous attempts", "budget"],
    });
    for (const r of record.redrives) {
      redrives.push(
        inertRow([
          r.at,
          r.by,
          describeCaller(r.caller),
          r.reason,
          r.previousStatus,
          r.previousAttempts,
          r.attemptBudget,
        ]),
      );
    }
    parts.push("Redrives", redrives.toString());
  }
  if ((record.audit ?? []).length > 0) {
    const audit = new Table({
      ...plain,
      head: ["at", "by", "caller", "action", "from", "reason", "message"],
    });
    for (const a of record.audit ?? []) {
      audit.push(
        inertRow([
          a.at,
          a.by,
          describeCaller(a.caller),
          a.action,
          a.previousStatus,
          a.reason,
          a.messageId,
        ]),
      );
    }
    parts.push("Audit", audit.toString());
  }
  return parts.join("\n");
};

/** `ricochet status <eventId>`: one event's record and attempt history. */
export const registerStatusCommand = (program: Command): void => {
  const command = program
    .command("status")
    .description(
      "Show an event's record: status, budget, attempt history, redrives, conflicts and audit.",
    )
    .argument("<eventId>", "the event id");
  addResourceOptions(withJsonOption(command)).action(
    async (eventId: string, flags: StatusFlags) => {
      const record = await withAwsSession(["tableName"], flags, (session) =>
        session.store().get(eventId),
      );
      if (record === undefined) throw new ResourceNotFoundError(`no record for event ${eventId}`);
      printResult(record, { json: flags.json, human: (r) => renderRecord(r) });
    },
  );
};
