import { InvokeCommand, type InvokeCommandOutput, type LambdaClient } from "@aws-sdk/client-lambda";
import * as z from "zod";
import type { CancelReport } from "../app/operator/cancel.js";
import type { CancelRequestInput, ReplayRequestInput } from "../app/operator/operator-request.js";
import type { RedriveReport } from "../app/operator/redrive.js";
import type { RedriveRequestInput } from "../app/operator/redrive-request.js";
import type { ReplayReport } from "../app/operator/replay.js";
import { RedriveFunctionError } from "../core/errors.js";
import { truncate } from "../core/outcome.js";
import { ALL_STATUSES } from "../core/status.js";
import { decodeExcerpt, describeFunctionError } from "./lambda-payload.js";

/*
 * Redrive, cancel and replay through the deployed redrive (operator) function instead of in this
 * process: the function's own role does the work (an operator needs only `grantRedrive`: invoke
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

export interface RedriveFunctionOptions {
  readonly lambda: LambdaClient;
  readonly functionName: string;
}

/** Invokes the function synchronously with `payload` and reads its answer with `schema`. */
const invokeOperatorFunction = async <R>(
  { lambda, functionName }: RedriveFunctionOptions,
  payload: unknown,
  schema: z.ZodType<R>,
  what: string,
): Promise<R> => {
  let output: InvokeCommandOutput;
  try {
    output = await lambda.send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: "RequestResponse",
        Payload: new TextEncoder().encode(JSON.stringify(payload)),
      }),
    );
  } catch (error) {
    const name = error instanceof Error ? error.name : "Error";
    const message = error instanceof Error ? error.message : String(error);
    throw new RedriveFunctionError(
      `could not invoke the redrive function ${functionName}: ${name}: ${message}`,
      { cause: error, context: { functionName } },
    );
  }
  const text = decodeExcerpt(output.Payload, Number.POSITIVE_INFINITY);
  if (output.FunctionError !== undefined) {
    const detail = describeFunctionError(text, truncate(text, MAX_QUOTED_CHARS));
    throw new RedriveFunctionError(`the redrive function ${functionName} failed: ${detail}`, {
      context: { functionName, functionError: output.FunctionError },
    });
  }
  const report = schema.safeParse(parseJson(text));
  if (!report.success) {
    throw new RedriveFunctionError(
      `the redrive function ${functionName} answered something that is not a ${what}: ${truncate(text, MAX_QUOTED_CHARS)}`,
      { context: { functionName } },
    );
  }
  return report.data;
};

/**
 * Invokes the redrive function synchronously with `request` and returns its report. The call
 * lasts as long as the run (up to the function's timeout); messages it had no time for come
 * back as skipped, as from an in-process run.
 *
 * @throws RedriveFunctionError when the invocation fails, the function throws, or its answer is
 * not a redrive report. A failed invocation may still have moved some events: every move is
 * audited on its record, and a second run skips what the first moved.
 */
export const invokeRedriveFunction = (
  options: RedriveFunctionOptions,
  request: RedriveRequestInput,
): Promise<RedriveReport> =>
  invokeOperatorFunction(options, request, RedriveReportSchema, "redrive report");

/**
 * Asks the function to cancel the named events and returns its report.
 * @throws RedriveFunctionError as {@link invokeRedriveFunction} does; a failed invocation may
 * have cancelled some events (each audited), and a second one refuses them as already cancelled.
 */
export const invokeCancelFunction = (
  options: RedriveFunctionOptions,
  request: Omit<CancelRequestInput, "action">,
): Promise<CancelReport> =>
  invokeOperatorFunction(
    options,
    { ...request, action: "cancel" },
    CancelReportSchema,
    "cancel report",
  );

/**
 * Asks the function to replay the named delivered events and returns its report.
 * @throws RedriveFunctionError as {@link invokeRedriveFunction} does; a failed invocation may
 * have replayed some events (each audited), and a second one refuses them as no longer delivered.
 */
export const invokeReplayFunction = (
  options: RedriveFunctionOptions,
  request: Omit<ReplayRequestInput, "action">,
): Promise<ReplayReport> =>
  invokeOperatorFunction(
    options,
    { ...request, action: "replay" },
    ReplayReportSchema,
    "replay report",
  );
