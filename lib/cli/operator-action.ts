import Table from "cli-table3";
import type { Command } from "commander";
import type { FailedEvent, RefusedEvent } from "../app/operator/operator-action.js";
import { countOf } from "../core/count-text.js";
import { ActionFailedError, ActionRefusedError } from "../core/errors.js";
import { callerName } from "./aws-session.js";
import { printResult, withJsonOption } from "./cli-support.js";
import { addResourceOptions, type ResourceFlags } from "./resources.js";

/*
 * How `cancel` and `replay` report: one row per event named (done, refused with the reason, or
 * failed with the error), a summary line, and an exit code that says whether anything failed
 * (1) or was refused (3), so a script can tell "nothing to do for that one" from "try again".
 */

/** The flags every per-event operator action takes. */
export interface OperatorActionFlags extends ResourceFlags {
  readonly reason?: string;
  readonly by?: string;
  readonly dryRun: boolean;
  readonly json: boolean;
}

/**
 * Adds `--reason`, `--by`, `--dry-run`, `--json` and the resource flags: who asks and why go
 * into each record's audit entry.
 */
export const addOperatorActionOptions = (command: Command): Command =>
  addResourceOptions(
    withJsonOption(
      command
        .option("--reason <text>", "why, for the audit entry")
        .option("--by <name>", "who asks, for the audit entry (default $USER)")
        .option("--dry-run", "report what would be done; change nothing", false),
    ),
  );

/** Who asks, why, and whether only to look, as the library's requests take them. */
export const identityFromFlags = (
  flags: OperatorActionFlags,
): { by: string; reason?: string; dryRun: boolean } => ({
  by: flags.by ?? callerName(),
  ...(flags.reason === undefined ? {} : { reason: flags.reason }),
  dryRun: flags.dryRun,
});

/** What every per-event operator action reports. */
export interface OperatorActionReport {
  readonly dryRun: boolean;
  readonly refused: readonly RefusedEvent[];
  readonly failed: readonly FailedEvent[];
}

/** How one action's report reads: its verb and the events it acted on. */
export interface OperatorActionView {
  /** Past tense, e.g. "cancelled". */
  readonly done: string;
  /** Conditional, for a dry run, e.g. "would cancel". */
  readonly wouldDo: string;
  readonly rows: readonly { readonly eventId: string; readonly detail: string }[];
}

/** The report as a table for a terminal, with a one-line summary under it. */
const renderOperatorAction = (report: OperatorActionReport, view: OperatorActionView): string => {
  const table = new Table({ head: ["", "event", "detail"], style: { head: [], border: [] } });
  const verb = report.dryRun ? view.wouldDo : view.done;
  for (const row of view.rows) table.push([verb, row.eventId, row.detail]);
  for (const r of report.refused) table.push(["refused", r.eventId, r.reason]);
  for (const f of report.failed) table.push(["failed", f.eventId, f.error]);
  const summary =
    `${report.dryRun ? "Dry run: " : ""}${view.rows.length} ${verb}, ` +
    `${report.refused.length} refused, ${report.failed.length} failed.`;
  return table.length === 0 ? summary : `${table.toString()}\n${summary}`;
};

/**
 * Prints the report (JSON with `json`), then throws what sets the exit code: failures first
 * (exit 1: an AWS call failed, trying again is safe), then refusals (exit 3).
 * @throws ActionFailedError when some event failed.
 * @throws ActionRefusedError when some event was refused and none failed.
 */
export const finishOperatorAction = <R extends OperatorActionReport>(
  report: R,
  options: { readonly json: boolean; readonly view: (report: R) => OperatorActionView },
): void => {
  printResult(report, {
    json: options.json,
    human: (r) => renderOperatorAction(r, options.view(r)),
  });
  const [failed] = report.failed;
  if (failed !== undefined)
    throw new ActionFailedError(
      `${countOf(report.failed.length, "event")} failed (first: ${failed.eventId}: ${failed.error}); trying again is safe`,
    );
  const [refused] = report.refused;
  if (refused !== undefined)
    throw new ActionRefusedError(
      `${countOf(report.refused.length, "event")} refused (first: ${refused.eventId}: ${refused.reason})`,
    );
};
