import Table from "cli-table3";
import type { Command } from "commander";
import { type CleanReport, cleanDeadLetters } from "../app/operator/dead-letter-clean.js";
import {
  type DeadLetterListing,
  listDeadLetters,
  listingDetail,
} from "../app/operator/dead-letter-scan.js";
import { countOf } from "../core/count-text.js";
import type { DeadLetterReason } from "../core/decide.js";
import { systemClock } from "../core/random.js";
import { callerName, withAwsSession } from "./aws-session.js";
import {
  cellText,
  deadLetterReasonOption,
  inertRow,
  parsePositiveWholeNumber,
  printResult,
  targetOption,
  withJsonOption,
} from "./cli-support.js";
import { createProgress } from "./progress.js";
import { addResourceOptions, type ResourceFlags } from "./resources.js";

/** Messages listed when `--limit` is not given. */
const DEFAULT_DLQ_LIST_LIMIT = 100;

interface DlqListFlags extends ResourceFlags {
  readonly reason?: DeadLetterReason[];
  readonly target?: string;
  readonly limit: number;
  readonly json: boolean;
}

/** What a listing says of a copy's standing: only a verified copy's summary is Ricochet's word. */
const standingOf = (m: DeadLetterListing): string =>
  m.verified ? "verified" : m.unverified === undefined ? "" : `UNVERIFIED: ${m.unverified}`;

/** A listing as a table for a terminal, producers' text made inert. */
export const renderListing = (messages: readonly DeadLetterListing[]): string => {
  if (messages.length === 0) return "The dead-letter queue has no matching messages.";
  const table = new Table({
    head: [
      "message",
      "event",
      "reason",
      "attempts",
      "dead-lettered",
      "last outcome or problems",
      "record",
    ],
    style: { head: [], border: [] },
  });
  for (const m of messages) {
    table.push(
      inertRow([
        m.messageId,
        m.eventId,
        m.reason ?? `(unreadable: ${m.error ?? "?"})`,
        m.attempts,
        m.deadLetteredAt,
        listingDetail(m),
        standingOf(m),
      ]),
    );
  }
  const unverified = messages.filter((m) => !m.verified && m.unverified !== undefined).length;
  return unverified === 0
    ? table.toString()
    : `${table.toString()}\n${countOf(unverified, "unverified copy", "unverified copies")}: ` +
        "the event's record does not bear the summary out; redrive leaves them unless --include-unverified.";
};

interface DlqCleanFlags extends ResourceFlags {
  readonly dryRun: boolean;
  readonly by?: string;
  readonly why?: string;
  readonly json: boolean;
}

/** The report of `dlq clean` for a terminal: one line per copy and a count. */
export const renderClean = (report: CleanReport): string => {
  const verb = report.dryRun ? "would remove" : "removed";
  const lines = report.removed.map(
    (r) => `${verb} ${cellText(r.messageId)} (${cellText(r.eventId)}): ${cellText(r.why)}`,
  );
  lines.push(
    `${countOf(report.removed.length, "copy", "copies")} ${report.dryRun ? "would be removed" : "removed"}, ${report.kept} kept` +
      (report.failed.length > 0 ? `, ${report.failed.length} failed` : ""),
  );
  for (const f of report.failed)
    lines.push(`failed ${cellText(f.messageId)}: ${cellText(f.error)}`);
  return lines.join("\n");
};

/** `ricochet dlq list` and `ricochet dlq clean`. */
export const registerDlqCommands = (program: Command): void => {
  const dlq = program.command("dlq").description("Inspect the dead-letter queue.");
  const list = dlq
    .command("list")
    .description(
      "List dead-lettered messages without consuming them (each is hidden for a few seconds).",
    )
    .addOption(deadLetterReasonOption())
    .addOption(targetOption())
    .option(
      "--limit <n>",
      "at most this many messages",
      parsePositiveWholeNumber,
      DEFAULT_DLQ_LIST_LIMIT,
    );
  addResourceOptions(withJsonOption(list)).action(async (flags: DlqListFlags) => {
    const progress = createProgress("scanning", flags);
    try {
      const messages = await withAwsSession(["deadLetterQueueUrl", "tableName"], flags, (session) =>
        listDeadLetters(
          session.deadLetterQueue(),
          {
            filter: { reasons: flags.reason, targetKey: flags.target },
            limit: flags.limit,
            onPage: (scanned) => progress.update(scanned),
          },
          session.store(),
        ),
      );
      progress.stop();
      printResult(messages, { json: flags.json, human: renderListing });
    } finally {
      progress.stop();
    }
  });

  const clean = dlq
    .command("clean")
    .description(
      "Remove the dead-letter copies of events that were delivered, with an audit entry on each event.",
    )
    .option("--dry-run", "list what would be removed; change nothing", false)
    .option("--by <name>", "who asks, for the audit entry (default $USER)")
    .option("--why <text>", "why, for the audit entry");
  addResourceOptions(withJsonOption(clean)).action(async (flags: DlqCleanFlags) => {
    const progress = createProgress("scanning", flags);
    try {
      const report = await withAwsSession(["deadLetterQueueUrl", "tableName"], flags, (session) =>
        cleanDeadLetters(
          {
            deadLetterQueue: session.deadLetterQueue(),
            store: session.store(),
            clock: systemClock,
            onProgress: (scanned) => progress.update(scanned),
            callerIdentity: session.callerIdentity(),
          },
          { dryRun: flags.dryRun, by: flags.by ?? callerName(), reason: flags.why },
        ),
      );
      progress.stop();
      printResult(report, { json: flags.json, human: renderClean });
      if (report.failed.length > 0) process.exitCode = 1;
    } finally {
      progress.stop();
    }
  });
};
