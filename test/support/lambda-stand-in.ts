import type { RicochetClientContext } from "../../lib/adapters/targets/lambda-target.js";
import { type FunctionReply, startLoopbackLambda } from "./loopback-lambda.js";

/*
 * Lambda targets for the tests: functions whose replies the test scripts, answered over the
 * Invoke API by the loopback server (./loopback-lambda.ts).
 */

/** One invocation the stand-in answered. */
interface Invocation {
  readonly functionName: string;
  /** The event the function received: the envelope's payload. */
  readonly event: unknown;
  readonly clientContext: RicochetClientContext | undefined;
  /** Wall-clock milliseconds when the request was read, and when the answer was written. */
  readonly startedAt: number;
  readonly endedAt: number;
}

export interface LambdaStandIn {
  /** The endpoint to give the Lambda client (`AwsEndpoints.lambda`). */
  readonly endpoint: string;
  readonly invocations: Invocation[];
  invocationsOf(functionName: string): Invocation[];
  /** Replies per function name, invocation by invocation; after the list the last one repeats. */
  script(replies: Record<string, readonly FunctionReply[]>): void;
  close(): Promise<void>;
}

const decodeClientContext = (header: string | string[] | undefined) =>
  typeof header === "string"
    ? (JSON.parse(Buffer.from(header, "base64").toString("utf8")) as RicochetClientContext)
    : undefined;

/**
 * Starts the stand-in on 127.0.0.1. A function with no script is answered like a missing one
 * (404 `ResourceNotFoundException`), so a typo in a test fails loudly rather than delivering.
 */
export const startLambdaStandIn = async (): Promise<LambdaStandIn> => {
  let replies: Record<string, readonly FunctionReply[]> = {};
  const invocations: Invocation[] = [];
  const invocationsOf = (functionName: string) =>
    invocations.filter((invocation) => invocation.functionName === functionName);
  const server = await startLoopbackLambda(({ functionName, event, headers }) => {
    const startedAt = Date.now();
    const list = replies[functionName];
    if (list === undefined || list.length === 0) return undefined;
    const reply = list[Math.min(invocationsOf(functionName).length, list.length - 1)];
    invocations.push({
      functionName,
      event,
      clientContext: decodeClientContext(headers["x-amz-client-context"]),
      startedAt,
      endedAt: Date.now(),
    });
    return reply;
  });
  return {
    endpoint: server.endpoint,
    invocations,
    invocationsOf,
    script: (next) => {
      replies = next;
    },
    close: () => server.close(),
  };
};
