import type { Command } from "commander";
import { parseReplayRequest, type ReplayRequest } from "../app/operator/operator-request.js";
import { type ReplayReport, replayEvents } from "../app/operator/replay.js";
import { InvalidRequestError } from "../core/errors.js";
import { withAwsSession } from "./aws-session.js";
import { parsePositiveWholeNumber } from "./cli-support.js";
import { defaultPolicyFromEnv } from "./deployment-from-env.js";
import {
  addOperatorActionOptions,
  finishOperatorAction,
  identityFromFlags,
  type OperatorActionFlags,
  type OperatorActionView,
} from "./operator-action.js";
import { policyLimitsFromEnv } from "./policy-limits-from-env.js";
import { parseSubmitInput, readEnvelopeText } from "./submit-input.js";

interface ReplayFlags extends OperatorActionFlags {
  readonly file?: string;
  readonly extraAttempts?: number;
}

const replayView = (report: ReplayReport): OperatorActionView => ({
  done: "replayed",
  wouldDo: "would replay",
  rows: report.replayed.map((r) => ({
    eventId: r.eventId,
    detail: `replay ${r.replay}, generation ${r.generation}, budget ${r.attemptBudget}`,
  })),
});

/**
 * The request the arguments describe. The record keeps only the accepted envelope's digest, so
 * the envelopes come from the operator (the file the events were submitted from), in `submit`'s
 * format; a line that is not JSON stops the replay before anything is sent.
 */
const requestOf = async (eventIds: string[], flags: ReplayFlags): Promise<ReplayRequest> => {
  const input = parseSubmitInput(await readEnvelopeText(flags.file));
  if (input.unreadable.length > 0)
    throw new InvalidRequestError(
      "replay envelopes",
      input.unreadable.flatMap((u) =>
        u.problems.map((p) => ({ ...p, path: `line ${u.index + 1}` })),
      ),
    );
  return parseReplayRequest({
    action: "replay",
    eventIds,
    envelopes: input.documents.map((d) =>
      typeof d.value === "object" && d.value !== null ? d.value : JSON.stringify(d.value),
    ),
    ...(flags.extraAttempts === undefined ? {} : { extraAttempts: flags.extraAttempts }),
    ...identityFromFlags(flags),
  });
};

/**
 * `ricochet replay <eventId…> --file envelopes.ndjson`: sends delivered events again as a new
 * generation, each call carrying the same `Idempotency-Key` and `Ricochet-Replay: <n>`. An
 * event not delivered, past its deadline or given another envelope is refused with the reason,
 * and the exit code is 3 when any was.
 */
export const registerReplayCommand = (program: Command): void => {
  const command = program
    .command("replay")
    .description(
      "Send delivered events again as a new generation (Ricochet-Replay header), with an audit entry.",
    )
    .argument("<eventId...>", "the events to replay")
    .option(
      "-f, --file <path>",
      "the events' envelopes as submitted (JSON or NDJSON; '-' or absent: stdin)",
    )
    .option(
      "--extra-attempts <n>",
      "attempts to grant (default: a fresh budget, the policy's maxAttempts)",
      parsePositiveWholeNumber,
    );
  addOperatorActionOptions(command).action(async (eventIds: string[], flags: ReplayFlags) => {
    const request = await requestOf(eventIds, flags);
    const report = await withAwsSession(
      ["ingressQueueUrl", "internalQueueUrl", "tableName"],
      flags,
      (session) =>
        replayEvents(
          {
            store: session.store(),
            ingressQueue: session.ingressQueue(),
            callerIdentity: session.callerIdentity(),
            clock: Date.now,
            defaultPolicy: defaultPolicyFromEnv(),
            policyLimits: policyLimitsFromEnv(),
          },
          request,
        ),
    );
    finishOperatorAction(report, { json: flags.json, view: replayView });
  });
};
