import Table from "cli-table3";
import type { Command } from "commander";
import { describeCaller } from "../core/caller.js";
import { ResourceNotFoundError } from "../core/errors.js";
import type { EventRecord } from "../core/record.js";
import { recordFacts } from "../core/record-facts.js";
import { withAwsSession } from "./aws-session.js";
import { cellText, inertRow, printResult, withJsonOption } from "./cli-support.js";
import { addResourceOptions, type ResourceFlags } from "./resources.js";

interface StatusFlags extends ResourceFlags {
  readonly json: boolean;
}

const plain = { style: { head: [] as string[], border: [] as string[] } };

/** The history's number for a run that made no call: it counted no attempt. */
const NO_CALL = "no call";

const summaryTable = (record: EventRecord, nowMs: number): string => {
  const summary = new Table(plain);
  for (const { name, value } of recordFacts(record, nowMs)) {
    // A list is laid out one line per item, each made inert.
    summary.push({
      [name]: typeof value === "object" ? value.map(cellText).join("\n") : cellText(value),
    });
  }
  return summary.toString();
};

/** A table with `head`, one inert row per item. */
const rowsTable = <T>(
  head: readonly string[],
  items: readonly T[],
  row: (item: T) => readonly unknown[],
): string => {
  const table = new Table({ ...plain, head: [...head] });
  for (const item of items) table.push(inertRow(row(item)));
  return table.toString();
};

const historyTable = (history: EventRecord["history"]): string => {
  // The trace column only when an attempt belongs to one: most events carry no trace context.
  const traced = history.some((a) => a.traceId !== undefined);
  const head = ["#", "claimed", "finished", "outcome", "status", "error", "delay (s)", "message"];
  return rowsTable([...head, ...(traced ? ["trace"] : [])], history, (a) => [
    a.noCall === true ? NO_CALL : a.attempt,
    a.claimedAt,
    a.finishedAt,
    a.outcome,
    a.statusCode,
    a.errorCategory,
    a.delaySeconds,
    a.message,
    ...(traced ? [a.traceId] : []),
  ]);
};

const REDRIVES_HEAD = [
  "at",
  "by",
  "caller",
  "reason",
  "previous status",
  "previous attempts",
  "budget",
];

const redrivesTable = (redrives: EventRecord["redrives"]): string =>
  rowsTable(REDRIVES_HEAD, redrives, (r) => [
    r.at,
    r.by,
    describeCaller(r.caller),
    r.reason,
    r.previousStatus,
    r.previousAttempts,
    r.attemptBudget,
  ]);

const AUDIT_HEAD = ["at", "by", "caller", "action", "from", "reason", "message"];

const auditTable = (audit: NonNullable<EventRecord["audit"]>): string =>
  rowsTable(AUDIT_HEAD, audit, (a) => [
    a.at,
    a.by,
    describeCaller(a.caller),
    a.action,
    a.previousStatus,
    a.reason,
    a.messageId,
  ]);

/** The record, its attempt history and its redrives, as tables for a terminal. */
export const renderRecord = (record: EventRecord, nowMs: number = Date.now()): string => {
  const parts = [summaryTable(record, nowMs)];
  if (record.history.length > 0) parts.push("Attempts", historyTable(record.history));
  if (record.redrives.length > 0) parts.push("Redrives", redrivesTable(record.redrives));
  const audit = record.audit ?? [];
  if (audit.length > 0) parts.push("Audit", auditTable(audit));
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
