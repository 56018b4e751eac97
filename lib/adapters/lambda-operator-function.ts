import { InvokeCommand, type InvokeCommandOutput, type LambdaClient } from "@aws-sdk/client-lambda";
import * as z from "zod";
import type { CancelReport } from "../app/operator/cancel.js";
import type { CancelRequestInput, ReplayRequestInput } from "../app/operator/operator-request.js";
import type { RedriveReport } from "../app/operator/redrive.js";
import type { RedriveRequestInput } from "../app/operator/redrive-request.js";
import type { ReplayReport } from "../app/operator/replay.js";
import { OperatorFunctionError } from "../core/errors.js";
import { truncate } from "../core/outcome.js";
import { ALL_STATUSES } from "../core/status.js";
import { decodeExcerpt, describeFunctionError } from "./lambda-payload.js";

/*
 * Redrive, cancel and replay through the deployed operator function instead of in this process: the function's own role does the work (an operator needs only `grantRedrive`: invoke
 * and read), and it grants budgets from the deployment's policy rather than from whatever the
 * caller's environment says.
 */

const RedriveReportSchema = z.object({
  dryRun: z.boolean(),
  moved: z.array(z.object({ eventId: z.string(), generation: z.int(), attemptBudget: z.int() })),
  skipped: z.array(
    z.object({ eventId: z.string().optional(), messageId: z.string(), reason: z.string() }),
  ),
  failed: z.array(
    z.object({ eventId: z.string().optional(), messageId: z.string(), error: z.string() }),
  ),
}) satisfies z.ZodType<RedriveReport>;

const refused = z.array(z.object({ eventId: z.string(), reason: z.string() }));
const failed = z.array(z.object({ eventId: z.string(), error: z.string() }));

const CancelReportSchema = z.object({
  dryRun: z.boolean(),
  cancelled: z.array(z.object({ eventId: z.string(), previousStatus: z.enum(ALL_STATUSES) })),
  refused,
  failed,
}) satisfies z.ZodType<CancelReport>;

const ReplayReportSchema = z.object({
  dryRun: z.boolean(),
  replayed: z.array(
    z.object({
      eventId: z.string(),
      generation: z.int(),
      attemptBudget: z.int(),
      replay: z.int(),
    }),
  ),
  refused,
  failed,
}) satisfies z.ZodType<ReplayReport>;

/** How much of an unreadable answer an error message quotes. */
const MAX_QUOTED_CHARS = 200;

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Which deployed operator function to invoke, and with which Lambda client. */
export interface OperatorFunctionOptions {
  readonly lambda: LambdaClient;
  readonly functionName: string;
}

/** What each action an invoker may ask the operator function for takes and answers with. */
export interface OperatorInvocations {
  readonly redrive: { readonly request: RedriveRequestInput; readonly report: RedriveReport };
  readonly cancel: {
    readonly request: Omit<CancelRequestInput, "action">;
    readonly report: CancelReport;
  };
  readonly replay: {
    readonly request: Omit<ReplayRequestInput, "action">;
    readonly report: ReplayReport;
  };
}

/** The actions an invoker may ask the operator function for (the sweep is only scheduled). */
export type InvokedOperatorAction = keyof OperatorInvocations;

const REPORT_SCHEMAS: {
  readonly [A in InvokedOperatorAction]: z.ZodType<OperatorInvocations[A]["report"]>;
} = { redrive: RedriveReportSchema, cancel: CancelReportSchema, replay: ReplayReportSchema };

// A redrive is sent without `action`, which defaults to it, so that a function deployed before
// the other actions existed still takes it.
const payloadOf = <A extends InvokedOperatorAction>(
  action: A,
  request: OperatorInvocations[A]["request"],
): unknown => (action === "redrive" ? request : { ...request, action });

/**
 * Invokes the operator function synchronously to run `action` with `request`, and returns that
 * action's report. The call lasts as long as the run (up to the function's timeout); a
 * redrive's messages it had no time for come back as skipped, as from an in-process run.
 *
 * @throws OperatorFunctionError when the invocation fails, the function throws, or its answer is
 * not the action's report. A failed invocation may still have done part of the work: every
 * move, cancel and replay is audited on its record, and a second run skips or refuses what the
 * first did (a redrive skips the events it moved; a cancel refuses them as already cancelled; a
 * replay as no longer delivered).
 */
export const invokeOperatorFunction = async <A extends InvokedOperatorAction>(
  { lambda, functionName }: OperatorFunctionOptions,
  action: A,
  request: OperatorInvocations[A]["request"],
): Promise<OperatorInvocations[A]["report"]> => {
  let output: InvokeCommandOutput;
  try {
    output = await lambda.send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: "RequestResponse",
        Payload: new TextEncoder().encode(JSON.stringify(payloadOf(action, request))),
      }),
    );
  } catch (error) {
    const name = error instanceof Error ? error.name : "Error";
    const message = error instanceof Error ? error.message : String(error);
    throw new OperatorFunctionError(
      `could not invoke the operator function ${functionName}: ${name}: ${message}`,
      { cause: error, context: { functionName } },
    );
  }
  const text = decodeExcerpt(output.Payload, Number.POSITIVE_INFINITY);
  if (output.FunctionError !== undefined) {
    const detail = describeFunctionError(text, truncate(text, MAX_QUOTED_CHARS));
    throw new OperatorFunctionError(`the operator function ${functionName} failed: ${detail}`, {
      context: { functionName, functionError: output.FunctionError },
    });
  }
  const report = REPORT_SCHEMAS[action].safeParse(parseJson(text));
  if (!report.success) {
    throw new OperatorFunctionError(
      `the operator function ${functionName} answered something that is not a ${action} report: ${truncate(text, MAX_QUOTED_CHARS)}`,
      { context: { functionName } },
    );
  }
  return report.data;
};
