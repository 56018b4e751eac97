import Table from "cli-table3";
import type { Command } from "commander";
import { ENV } from "../contract/environment.js";
import type { BreakerSettings } from "../core/circuit-breaker.js";
import {
  BREAKERS_OFF_NOTE,
  LEARNED_LIMIT_HEADINGS,
  learnedLimitCells,
  NO_TARGET_FAILED,
  type TargetReport,
  targetReports,
} from "../core/target-report.js";
import { formatSeconds } from "../core/time-format.js";
import { readBreakerSetting } from "../runtime/config.js";
import { withAwsSession } from "./aws-session.js";
import { inertRow, parsePositiveWholeNumber, printResult, withJsonOption } from "./cli-support.js";
import { addResourceOptions, type ResourceFlags } from "./resources.js";

/** Targets listed when `--limit` is not given. */
const DEFAULT_TARGETS_LIMIT = 100;

interface TargetsFlags extends ResourceFlags {
  readonly limit: number;
  readonly json: boolean;
}

/**
 * The breakers as the functions run them, by `RICOCHET_CIRCUIT_BREAKER` (set it to the
 * deployment's value, as for the other settings): undefined when they are off.
 */
export const breakerSettingsFromEnv = (
  env: NodeJS.ProcessEnv = process.env,
): BreakerSettings | undefined => readBreakerSetting(env[ENV.CIRCUIT_BREAKER]);

const ago = (at: string | undefined, nowMs: number): string =>
  at === undefined ? "" : `${formatSeconds((nowMs - Date.parse(at)) / 1000)} ago`;

const failuresOf = (t: TargetReport): string => {
  const rate = t.failureRate === undefined ? "" : ` (${Math.round(t.failureRate * 100)}%)`;
  return `${t.failures}/${t.calls}${rate}`;
};

const stateOf = (t: TargetReport, nowMs: number): string =>
  t.reopenAt === undefined
    ? t.state
    : `${t.state}, probe in ${formatSeconds(Math.max(0, Date.parse(t.reopenAt) - nowMs) / 1000)}`;

/** A table's columns and each target's cells, with the breakers on or off. */
const COLUMNS = {
  on: {
    head: [
      "target",
      "state",
      "failures/calls",
      "deferred",
      "last error",
      "last failed",
      "opened",
      "closed",
      ...LEARNED_LIMIT_HEADINGS,
    ],
    row: (t: TargetReport, nowMs: number) => [
      t.target,
      stateOf(t, nowMs),
      failuresOf(t),
      t.deferred,
      t.lastError,
      ago(t.lastErrorAt, nowMs),
      ago(t.openedAt, nowMs),
      ago(t.closedAt, nowMs),
      ...learnedLimitCells(t, nowMs),
    ],
  },
  off: {
    head: ["target", "failures/calls", "last error", "last failed", ...LEARNED_LIMIT_HEADINGS],
    row: (t: TargetReport, nowMs: number) => [
      t.target,
      failuresOf(t),
      t.lastError,
      ago(t.lastErrorAt, nowMs),
      ...learnedLimitCells(t, nowMs),
    ],
  },
} as const;

/**
 * `ricochet targets`' text: with the breakers off it says so first, and leaves out the breaker's
 * columns, which would only say "closed".
 */
export const renderTargets =
  (view: { readonly nowMs: number; readonly breakersOn: boolean }) =>
  (targets: readonly TargetReport[]): string => {
    const note = view.breakersOn ? [] : [BREAKERS_OFF_NOTE];
    if (targets.length === 0) return [...note, NO_TARGET_FAILED].join("\n");
    const columns = view.breakersOn ? COLUMNS.on : COLUMNS.off;
    const table = new Table({ head: [...columns.head], style: { head: [], border: [] } });
    for (const t of targets) table.push(inertRow(columns.row(t, view.nowMs)));
    return [...note, table.toString()].join("\n");
  };

/**
 * `ricochet targets`: each target's breaker, recent failures, last error, deferrals and learned
 * limit.
 */
export const registerTargetsCommand = (program: Command): void => {
  const command = program
    .command("targets")
    .description(
      "List every target that has failed or been held back, most recently written first: " +
        "breaker state, failures in the current window, deferrals, last error (with breakers off, " +
        `as ${ENV.CIRCUIT_BREAKER} says: failures and last error only), and the adaptive limit ` +
        "the instances learned (summed), its ceiling and why it last changed.",
    )
    .option(
      "--limit <n>",
      "at most this many targets",
      parsePositiveWholeNumber,
      DEFAULT_TARGETS_LIMIT,
    );
  addResourceOptions(withJsonOption(command)).action(async (flags: TargetsFlags) => {
    const breakers = breakerSettingsFromEnv();
    const listed = await withAwsSession(["tableName"], flags, (session) =>
      session.targetState().list(flags.limit),
    );
    const nowMs = Date.now();
    const reports = targetReports(listed, nowMs, breakers);
    printResult(reports, {
      json: flags.json,
      human: renderTargets({ nowMs, breakersOn: breakers !== undefined }),
    });
  });
};
