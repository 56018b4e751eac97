import Table from "cli-table3";
import { type Command, Option } from "commander";
import type { EventRecord } from "../core/record.js";
import { ALL_STATUSES, type EventStatus } from "../core/status.js";
import { DEFAULT_STUCK_AFTER_SECONDS, DEFAULT_STUCK_LOOKBACK_DAYS } from "../core/stuck.js";
import { withAwsSession } from "./aws-session.js";
import {
  inertRow,
  parsePositiveWholeNumber,
  printResult,
  targetOption,
  withJsonOption,
} from "./cli-support.js";
import { addResourceOptions, type ResourceFlags } from "./resources.js";
import { parseDuration } from "./time-flags.js";

/**
 * Records listed when `--limit` is not given, by status or the most recent: a terminal's
 * screenful or two, and enough to spot a pattern.
 */
const DEFAULT_EVENTS_LIMIT = 50;

/**
 * Items a listing reads when `--max-read` is not given: a few seconds and well under a dollar of
 * reads on DynamoDB, where an unbounded scan for a rare status would read the whole table.
 */
const DEFAULT_EVENTS_MAX_READ = 100_000;

interface EventsFlags extends ResourceFlags {
  /** Absent: every status, the most recently updated first. */
  readonly status?: EventStatus;
  /** Waiting events long past due with no message left, from the due index (no scan). */
  readonly stuck?: boolean;
  readonly olderThan?: number;
  readonly target?: string;
  readonly limit: number;
  readonly maxRead: number;
  readonly json: boolean;
}

/** `ricochet events` as text: one row per record, every value inert. */
export const renderEvents = (records: readonly EventRecord[]): string => {
  if (records.length === 0) return "No events.";
  const table = new Table({
    head: ["event", "status", "attempts", "updated", "last outcome"],
    style: { head: [], border: [] },
  });
  for (const r of records) {
    table.push(
      inertRow([
        r.eventId,
        r.status,
        `${r.attempts}/${r.attemptBudget}`,
        r.updatedAt,
        r.lastOutcome?.message,
      ]),
    );
  }
  return table.toString();
};

/**
 * `ricochet events [--status s]`: records in one status, or without `--status` the most recently
 * updated of any. Dead-lettered and rejected events come from the sparse byStatus index; other
 * statuses, and the recent listing, need a scan of the table (see the store).
 */
export const registerEventsCommand = (program: Command): void => {
  const command = program
    .command("events")
    .description(
      "List events: without --status the most recently updated, newest first; with it, those in " +
        "a status. dead_lettered and rejected are read from the status index, oldest first; other " +
        "statuses and the recent listing scan the table (slow on a large table, bounded by --max-read).",
    )
    .addOption(
      new Option(
        "--status <status>",
        "only this status (default: every status, newest first)",
      ).choices(ALL_STATUSES),
    )
    .option(
      "--older-than <duration>",
      "only events not updated for this long (90s, 15m, 1h, 2d)",
      parseDuration,
    )
    .addOption(
      new Option(
        "--stuck",
        "only stuck events: waiting, due longer ago than --older-than (default 1h), never claimed " +
          "since; read from the due index, oldest due first, without a scan",
      ).conflicts(["status", "target"]),
    )
    .addOption(targetOption())
    .option(
      "--limit <n>",
      "at most this many events",
      parsePositiveWholeNumber,
      DEFAULT_EVENTS_LIMIT,
    )
    .option(
      "--max-read <n>",
      "stop after reading this many records of the table or index, matching or not",
      parsePositiveWholeNumber,
      DEFAULT_EVENTS_MAX_READ,
    );
  addResourceOptions(withJsonOption(command)).action(async (flags: EventsFlags) => {
    const updatedBefore =
      flags.olderThan === undefined
        ? undefined
        : new Date(Date.now() - flags.olderThan * 1000).toISOString();
    const request = {
      updatedBefore,
      targetKey: flags.target,
      limit: flags.limit,
      maxItemsRead: flags.maxRead,
    };
    const { status } = flags;
    const stuckAfterSeconds = flags.olderThan ?? DEFAULT_STUCK_AFTER_SECONDS;
    const { records, cutShort } = await withAwsSession(["tableName"], flags, (session) => {
      if (flags.stuck === true) {
        return session.store().listStuck({
          cutoffMs: Date.now() - stuckAfterSeconds * 1000,
          lookbackDays: DEFAULT_STUCK_LOOKBACK_DAYS,
          limit: flags.limit,
        });
      }
      return status === undefined
        ? session.store().listRecent(request)
        : session.store().listByStatus({ ...request, status });
    });
    printResult(records, { json: flags.json, human: renderEvents });
    // On stderr, so that --json output keeps its shape: scripts read the same array as before.
    if (cutShort && flags.stuck === true) {
      process.stderr.write(
        `ricochet: warning: more than ${flags.limit} stuck events (--limit lists more)\n`,
      );
    } else if (cutShort) {
      const more = status === undefined ? "newer events" : `more ${status} events`;
      process.stderr.write(
        `ricochet: warning: stopped after reading ${flags.maxRead} records; ${more} may exist (--max-read reads further)\n`,
      );
    }
  });
};
