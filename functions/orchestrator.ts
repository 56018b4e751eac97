import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";

/** Placeholder so the CDK app synthesizes; the orchestrator's owner replaces it. */
export const handler = async (_event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => {
  throw new Error("not implemented");
};
