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

/** The record, its attempt history and its redrives, as tables for a terminal. */
export const renderRecord = (record: EventRecord, nowMs: number = Date.now()): string => {
  const summary = new Table(plain);
  for (const { name, value } of recordFacts(record, nowMs)) {
    // A list is laid out one line per item, each made inert.
    summary.push({
      [name]: typeof value === "object" ? value.map(cellText).join("\n") : cellText(value),
    });
  }
  const parts = [summary.toString()];
  if (record.history.length > 0) {
    // The trace column only when an attempt belongs to one: most events carry no trace context.
    const traced = record.history.some((a) => a.traceId !== undefined);
    const history = new Table({
      ...plain,
      head: [
        "#",
        "claimed",
        "finished",
        "outcome",
        "status",
        "error",
        "delay (s)",
        "message",
        ...(traced ? ["trace"] : []),
      ],
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
          ...(traced ? [a.traceId] : []),
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
