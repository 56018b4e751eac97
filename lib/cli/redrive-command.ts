import { setTimeout as sleep } from "node:timers/promises";
import Table from "cli-table3";
import { type Command, Option } from "commander";
import { lacksLambda } from "../adapters/aws-clients.js";
import { type RedriveReport, redrive } from "../app/operator/redrive.js";
import { parseRedriveRequest, type RedriveRequestInput } from "../app/operator/redrive-request.js";
import { countOf } from "../core/count-text.js";
import type { DeadLetterReason } from "../core/decide.js";
import { ConfigurationError, QueueUnavailableError } from "../core/errors.js";
import { callerName, withAwsSession } from "./aws-session.js";
import {
  deadLetterReasonOption,
  inertRow,
  parseNonNegativeNumber,
  parsePositiveWholeNumber,
  printResult,
  targetOption,
  withJsonOption,
} from "./cli-support.js";
import { defaultPolicyFromEnv } from "./deployment-from-env.js";
import { policyLimitsFromEnv } from "./policy-limits-from-env.js";
import { createProgress } from "./progress.js";
import { addResourceOptions, type ResourceFlags } from "./resources.js";
import { parseInstant } from "./time-flags.js";
import { guardUnfilteredRedrive } from "./unfiltered-redrive.js";

interface RedriveFlags extends ResourceFlags {
  readonly eventId?: string[];
  readonly reason?: DeadLetterReason[];
  readonly target?: string;
  readonly since?: string;
  readonly until?: string;
  readonly limit?: number;
  readonly resetAttempts?: boolean;
  readonly extraAttempts?: number;
  readonly rate?: number;
  readonly by?: string;
  readonly why?: string;
  readonly dryRun: boolean;
  readonly includeUnverified: boolean;
  /** An unfiltered redrive, meant: every dead-lettered event. */
  readonly all: boolean;
  readonly json: boolean;
  /** `--function` alone: the stack's operator function; with a value: that function. */
  readonly function?: string | true;
}

/** `ricochet redrive`'s report as text: one row per message, every value inert. */
export const renderRedriveReport = (report: RedriveReport): string => {
  const table = new Table({
    head: ["", "event", "message", "detail"],
    style: { head: [], border: [] },
  });
  const verb = report.dryRun ? "would move" : "moved";
  for (const m of report.moved) {
    table.push(
      inertRow([verb, m.eventId, "", `generation ${m.generation}, budget ${m.attemptBudget}`]),
    );
  }
  for (const s of report.skipped)
    table.push(inertRow(["skipped", s.eventId, s.messageId, s.reason]));
  for (const f of report.failed) table.push(inertRow(["failed", f.eventId, f.messageId, f.error]));
  const summary =
    `${report.dryRun ? "Dry run: " : ""}${report.moved.length} ${verb}, ` +
    `${report.skipped.length} skipped, ${report.failed.length} failed.`;
  return table.length === 0 ? summary : `${table.toString()}\n${summary}`;
};

/** The request the flags describe; validated by the redrive itself. */
const requestFromFlags = (flags: RedriveFlags): RedriveRequestInput => ({
  eventIds: flags.eventId,
  reasons: flags.reason,
  target: flags.target,
  since: flags.since,
  until: flags.until,
  limit: flags.limit,
  dryRun: flags.dryRun,
  ratePerSecond: flags.rate,
  resetAttempts: flags.resetAttempts,
  extraAttempts: flags.extraAttempts,
  // Only when asked: a deployed operator function older than the flag need not know the field.
  ...(flags.includeUnverified ? { includeUnverified: true } : {}),
  by: flags.by ?? callerName(),
  why: flags.why,
});

/**
 * `ricochet redrive`: moves dead-lettered events back, in this process with the caller's own
 * credentials, or in the deployed operator function with `--function`.
 */
export const registerRedriveCommand = (program: Command): void => {
  const command = program
    .command("redrive")
    .description(
      "Move dead-lettered events back to Ricochet's internal queue (which producers cannot " +
        "write to), with an audit entry.",
    )
    .option("--event-id <id...>", "only these events")
    .addOption(deadLetterReasonOption())
    .addOption(targetOption())
    .option(
      "--since <time>",
      "dead-lettered at or after (ISO time, or a duration ago: 2h)",
      parseInstant(),
    )
    .option("--until <time>", "dead-lettered before (ISO time, or a duration ago)", parseInstant())
    .option("--limit <n>", "move at most this many messages", parsePositiveWholeNumber)
    .addOption(
      new Option(
        "--reset-attempts",
        "grant a fresh budget (attempts so far + maxAttempts)",
      ).conflicts("extraAttempts"),
    )
    .option(
      "--extra-attempts <n>",
      "grant this many more attempts (default 1)",
      parsePositiveWholeNumber,
    )
    .option("--rate <perSecond>", "moves per second (default 10)", parseNonNegativeNumber)
    .option("--by <name>", "who asks, for the audit entry (default $USER)")
    .option("--why <text>", "why, for the audit entry")
    .option("--dry-run", "list what would move; change nothing", false)
    .option(
      "--include-unverified",
      "also move copies the event's record does not bear out (`dlq list` marks them unverified)",
      false,
    )
    .addOption(
      new Option(
        "--all",
        "move every dead-lettered event: needed without a filter in scripts (--json, no terminal)",
      )
        .default(false)
        .conflicts(["eventId", "reason", "target", "since", "until"]),
    )
    .option(
      "--function [name]",
      "run it in the deployed operator function (its role, the deployment's policy); " +
        "default: the stack's OperatorFunctionName output. Not locally: `npm start` has none",
    );
  addResourceOptions(withJsonOption(command)).action(async (flags: RedriveFlags) => {
    const request = requestFromFlags(flags);
    await guardUnfilteredRedrive({
      request,
      all: flags.all,
      json: flags.json,
      interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
    });
    const report =
      flags.function === undefined
        ? await redriveHere(flags, request)
        : await redriveInFunction(flags, flags.function, request);
    printResult(report, { json: flags.json, human: renderRedriveReport });
    if (report.failed.length > 0) {
      throw new QueueUnavailableError(
        `${countOf(report.failed.length, "message")} could not be redriven and ${report.failed.length === 1 ? "stays" : "stay"} in the dead-letter queue`,
      );
    }
  });
};

/** Runs the redrive in this process, with the caller's credentials and a progress display. */
const redriveHere = async (
  flags: RedriveFlags,
  request: RedriveRequestInput,
): Promise<RedriveReport> => {
  const progress = createProgress(flags.dryRun ? "checking" : "redriving", flags);
  try {
    return await withAwsSession(
      ["ingressQueueUrl", "internalQueueUrl", "deadLetterQueueUrl", "tableName"],
      flags,
      (session) =>
        redrive(
          {
            deadLetterQueue: session.deadLetterQueue(),
            ingressQueue: session.ingressQueue(),
            store: session.store(),
            clock: Date.now,
            sleep: (ms) => sleep(ms),
            defaultPolicy: defaultPolicyFromEnv(),
            policyLimits: policyLimitsFromEnv(),
            onProgress: (p) => progress.update(p.done, p.total),
            callerIdentity: session.callerIdentity(),
          },
          request,
        ),
    );
  } finally {
    progress.stop();
  }
};

/** `--function` against `npm start`, which runs the orchestrator in its process and no Lambda. */
const NO_LOCAL_OPERATOR_FUNCTION = new ConfigurationError(
  "there is no operator function locally: `npm start` runs no Lambda functions (SQS and DynamoDB " +
    "point at emulators, Lambda at nothing); run `ricochet redrive` without --function, which " +
    "redrives in this process with the same checks and audit entry",
);

/**
 * Asks the deployed operator function to run the request: the operator needs only permission to
 * invoke it. The request is validated here first, so a bad flag fails before any AWS call.
 */
const redriveInFunction = async (
  flags: RedriveFlags,
  name: string | true,
  request: RedriveRequestInput,
): Promise<RedriveReport> => {
  parseRedriveRequest(request);
  if (lacksLambda(process.env)) throw NO_LOCAL_OPERATOR_FUNCTION;
  const named = name === true ? undefined : name;
  // Loads the Lambda SDK client, which only this path needs: imported on use, not at start-up.
  const { invokeOperatorFunction } = await import("../adapters/lambda-operator-function.js");
  return withAwsSession(
    named === undefined ? ["operatorFunctionName"] : [],
    flags,
    async (session) =>
      invokeOperatorFunction(
        {
          lambda: await session.clients.lambda(),
          functionName: named ?? session.operatorFunctionName(),
        },
        "redrive",
        request,
      ),
  );
};
