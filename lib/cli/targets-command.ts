import Table from "cli-table3";
import type { Command } from "commander";
import { ENV } from "../contract/environment.js";
import { type BreakerSettings, DEFAULT_BREAKER_SETTINGS } from "../core/circuit-breaker.js";
import { type TargetReport, targetReport } from "../core/target-report.js";
import { formatSeconds } from "../core/time-format.js";
import { readBreakerSetting } from "../runtime/config.js";
import { withAwsSession } from "./aws-session.js";
import { inertRow, parsePositiveWholeNumber, printResult, withJsonOption } from "./cli-support.js";
import { addResourceOptions, type ResourceFlags } from "./resources.js";

/** Targets listed when `--limit` is not given. */
export const DEFAULT_TARGETS_LIMIT = 100;

interface TargetsFlags extends ResourceFlags {
  readonly limit: number;
  readonly json: boolean;
}

/** The breakers' window as the functions use it: `RICOCHET_CIRCUIT_BREAKER`, else the default. */
export const breakerSettingsFromEnv = (env: NodeJS.ProcessEnv = process.env): BreakerSettings =>
  readBreakerSetting(env[ENV.CIRCUIT_BREAKER]) ?? DEFAULT_BREAKER_SETTINGS;

const ago = (at: string | undefined, nowMs: number): string =>
  at === undefined ? "" : `${formatSeconds((nowMs - Date.parse(at)) / 1000)} ago`;

const renderTargets =
  (nowMs: number) =>
  (targets: readonly TargetReport[]): string => {
    if (targets.length === 0) return "No target has failed yet.";
    const table = new Table({
      head: ["target", "state", "failures/calls", "deferred", "last error", "opened", "closed"],
      style: { head: [], border: [] },
    });
    for (const t of targets) {
      const state =
        t.reopenAt === undefined
          ? t.state
          : `${t.state}, probe in ${formatSeconds(Math.max(0, Date.parse(t.reopenAt) - nowMs) / 1000)}`;
      const rate = t.failureRate === undefined ? "" : ` (${Math.round(t.failureRate * 100)}%)`;
      table.push(
        inertRow([
          t.target,
          state,
          `${t.failures}/${t.calls}${rate}`,
          t.deferred,
          t.lastError,
          ago(t.openedAt, nowMs),
          ago(t.closedAt, nowMs),
        ]),
      );
    }
    return table.toString();
  };

/** `ricochet targets`: each target's breaker, recent failures, last error and deferrals. */
export const registerTargetsCommand = (program: Command): void => {
  const command = program
    .command("targets")
    .description(
      "List the targets whose circuit breakers have state (every target that has failed), most " +
        "recently written first: breaker state, failures in the current window, deferrals, last error.",
    )
    .option(
      "--limit <n>",
      "at most this many targets",
      parsePositiveWholeNumber,
      DEFAULT_TARGETS_LIMIT,
    );
  addResourceOptions(withJsonOption(command)).action(async (flags: TargetsFlags) => {
    const { windowMs } = breakerSettingsFromEnv();
    const listed = await withAwsSession(["tableName"], flags, (session) =>
      session.targetState().list(flags.limit),
    );
    const nowMs = Date.now();
    const reports = listed.map((target) => targetReport(target, nowMs, windowMs));
    printResult(reports, { json: flags.json, human: renderTargets(nowMs) });
  });
};
