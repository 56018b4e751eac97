import { InvokeCommand, type InvokeCommandOutput, type LambdaClient } from "@aws-sdk/client-lambda";
import * as z from "zod";
import { RedriveFunctionError } from "../core/errors.js";
import { truncate } from "../core/outcome.js";
import type { RedriveReport } from "../redrive.js";
import type { RedriveRequestInput } from "../redrive-request.js";
import { decodeExcerpt, describeFunctionError } from "./lambda-payload.js";

/*
 * Redrive through the deployed redrive function instead of in this process: the function's own
 * role does the moving (an operator needs only `grantRedrive`: invoke and read), and it grants
 * budgets from the deployment's policy rather than from whatever the caller's environment says.
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

/**
 * Invokes the redrive function synchronously with `request` and returns its report. The call
 * lasts as long as the run (up to the function's timeout); messages it had no time for come
 * back as skipped, as from an in-process run.
 *
 * @throws RedriveFunctionError when the invocation fails, the function throws, or its answer is
 * not a redrive report. A failed invocation may still have moved some events: every move is
 * audited on its record, and a second run skips what the first moved.
 */
export const invokeRedriveFunction = async (
  { lambda, functionName }: RedriveFunctionOptions,
  request: RedriveRequestInput,
): Promise<RedriveReport> => {
  let output: InvokeCommandOutput;
  try {
    output = await lambda.send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: "RequestResponse",
        Payload: new TextEncoder().encode(JSON.stringify(request)),
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
  const report = RedriveReportSchema.safeParse(parseJson(text));
  if (!report.success) {
    throw new RedriveFunctionError(
      `the redrive function ${functionName} answered something that is not a redrive report: ${truncate(text, MAX_QUOTED_CHARS)}`,
      { context: { functionName } },
    );
  }
  return report.data;
};
