import Table from "cli-table3";
import type { Command } from "commander";
import type { DeadLetterReason } from "../core/decide.js";
import { type DeadLetterListing, listDeadLetters } from "../dead-letter-scan.js";
import { withAwsSession } from "./aws-session.js";
import {
  deadLetterReasonOption,
  parsePositiveWholeNumber,
  printResult,
  withJsonOption,
} from "./cli-support.js";
import { createProgress } from "./progress.js";
import { addResourceOptions, type ResourceFlags } from "./resources.js";

/** Messages listed when `--limit` is not given. */
export const DEFAULT_DLQ_LIST_LIMIT = 100;

interface DlqListFlags extends ResourceFlags {
  readonly reason?: DeadLetterReason[];
  readonly limit: number;
  readonly json: boolean;
}

const renderListing = (messages: readonly DeadLetterListing[]): string => {
  if (messages.length === 0) return "The dead-letter queue has no matching messages.";
  const table = new Table({
    head: ["message", "event", "reason", "attempts", "dead-lettered", "last outcome"],
    style: { head: [], border: [] },
  });
  for (const m of messages) {
    table.push([
      m.messageId,
      m.eventId ?? "",
      m.reason ?? `(unreadable: ${m.error ?? "?"})`,
      m.attempts ?? "",
      m.deadLetteredAt,
      m.lastOutcome ?? "",
    ]);
  }
  return table.toString();
};

/** `ricochet dlq list`: dead-letter messages, without consuming them. */
export const registerDlqCommands = (program: Command): void => {
  const dlq = program.command("dlq").description("Inspect the dead-letter queue.");
  const list = dlq
    .command("list")
    .description(
      "List dead-lettered messages without consuming them (each is hidden for a few seconds).",
    )
    .addOption(deadLetterReasonOption())
    .option(
      "--limit <n>",
      "at most this many messages",
      parsePositiveWholeNumber,
      DEFAULT_DLQ_LIST_LIMIT,
    );
  addResourceOptions(withJsonOption(list)).action(async (flags: DlqListFlags) => {
    const progress = createProgress("scanning", flags);
    try {
      const messages = await withAwsSession(["deadLetterQueueUrl"], flags, (session) =>
        listDeadLetters(session.deadLetterQueue(), {
          filter: { reasons: flags.reason },
          limit: flags.limit,
          onPage: (scanned) => progress.update(scanned),
        }),
      );
      progress.stop();
      printResult(messages, { json: flags.json, human: renderListing });
    } finally {
      progress.stop();
    }
  });
};
