import type { Message } from "@aws-sdk/client-sqs";
import type { Context, SQSEvent } from "aws-lambda";
import { createLambdaContext } from "../lambda-context.js";
import { toSqsRecord } from "../sqs-record.js";
import type { PollerContext } from "./poller-context.js";

export const TIMED_OUT = Symbol("timed out");

/** The handler's answer, or TIMED_OUT once the function timeout passes; a late handler is kept. */
const invokeWithin = async (
  context: PollerContext,
  event: SQSEvent,
  lambdaContext: Context,
): Promise<unknown> => {
  const { logger, queueUrl, overrunning } = context;
  const running = context.options.handler(event, lambdaContext);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), context.settings.functionTimeoutMs);
  });
  try {
    const result = await Promise.race([running, timeout]);
    if (result === TIMED_OUT) {
      const late = running.then(
        () => undefined,
        (error: unknown) => logger.error("handler failed after its timeout", { queueUrl, error }),
      );
      overrunning.add(late);
      void late.finally(() => overrunning.delete(late));
    }
    return result;
  } finally {
    clearTimeout(timer);
  }
};

/** One invocation, timed from when it got a slot of the function's concurrency. */
export const invokeWithBatch = async (
  context: PollerContext,
  messages: readonly Message[],
  worker: number,
): Promise<unknown> => {
  const { settings, stats } = context;
  const { region, queueArn } = await context.source;
  const startedAt = Date.now();
  const records = messages.map((message) => toSqsRecord(message, { queueArn, region }, startedAt));
  const lambdaContext = createLambdaContext({
    functionName: settings.functionName,
    region,
    accountId: queueArn.split(":")[4] ?? "000000000000",
    deadlineMs: startedAt + settings.functionTimeoutMs,
    logStreamName: `local/poller-${worker}`,
    now: Date.now,
  });
  stats.invocations += 1;
  try {
    return await invokeWithin(context, { Records: records }, lambdaContext);
  } finally {
    stats.billedDurationMs += Math.max(1, Math.ceil(Date.now() - startedAt));
  }
};
