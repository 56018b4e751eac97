import { randomUUID } from "node:crypto";
import type { Context } from "aws-lambda";

export interface LambdaContextInput {
  readonly functionName: string;
  readonly region: string;
  readonly accountId: string;
  /** Epoch ms at which the invocation times out. */
  readonly deadlineMs: number;
  readonly logStreamName: string;
  readonly now: () => number;
}

const unsupported = (name: string) => (): never => {
  throw new Error(`context.${name}() is the deprecated callback API: return a promise instead`);
};

/** A Lambda context for one local invocation; its remaining time counts down to `deadlineMs`. */
export const createLambdaContext = (input: LambdaContextInput): Context => ({
  callbackWaitsForEmptyEventLoop: true,
  functionName: input.functionName,
  functionVersion: "$LATEST",
  invokedFunctionArn: `arn:aws:lambda:${input.region}:${input.accountId}:function:${input.functionName}`,
  memoryLimitInMB: "128",
  awsRequestId: randomUUID(),
  logGroupName: `/aws/lambda/${input.functionName}`,
  logStreamName: input.logStreamName,
  getRemainingTimeInMillis: () => Math.max(0, input.deadlineMs - input.now()),
  done: unsupported("done"),
  fail: unsupported("fail"),
  succeed: unsupported("succeed"),
});
