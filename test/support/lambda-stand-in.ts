import type { RicochetClientContext } from "../../lib/adapters/targets/lambda-target.js";
import { type LocalReceiver, startReceiver } from "../adapters/targets/local-servers.js";

/*
 * No Lambda emulator runs here, so this loopback server speaks the part of the Lambda Invoke REST
 * API Ricochet uses (`POST /2015-03-31/functions/{name}/invocations`, synchronous) and the real
 * `@aws-sdk/client-lambda` talks to it. It answers as Lambda does: 200 with the function's result,
 * or 200 with `X-Amz-Function-Error` and the runtime's `{ errorType, errorMessage }` payload.
 */

/** What a stand-in function does for one invocation. */
export type FunctionReply =
  | { readonly result: unknown }
  | {
      readonly error: { readonly errorType: string; readonly errorMessage: string };
      /** As Lambda sets `X-Amz-Function-Error`; `Unhandled` unless the test needs `Handled`. */
      readonly functionError?: "Unhandled" | "Handled";
    };

/** One invocation the stand-in answered. */
export interface Invocation {
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

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

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
  const server: LocalReceiver = await startReceiver((request, response) => {
    const startedAt = Date.now();
    const path = INVOKE_PATH.exec(request.url.split("?")[0] ?? "");
    const functionName = decodeURIComponent(path?.[1] ?? "");
    const list = replies[functionName];
    if (request.method !== "POST" || path === null || list === undefined || list.length === 0) {
      response
        .writeHead(404, { "Content-Type": "application/json" })
        .end(JSON.stringify({ __type: "ResourceNotFoundException", message: "no such function" }));
      return;
    }
    const reply = list[Math.min(invocationsOf(functionName).length, list.length - 1)];
    invocations.push({
      functionName,
      event: JSON.parse(request.body),
      clientContext: decodeClientContext(request.headers["x-amz-client-context"]),
      startedAt,
      endedAt: Date.now(),
    });
    if (reply !== undefined && "error" in reply) {
      response
        .writeHead(200, { "X-Amz-Function-Error": reply.functionError ?? "Unhandled" })
        .end(JSON.stringify({ ...reply.error, trace: [] }));
      return;
    }
    response
      .writeHead(200, { "X-Amz-Executed-Version": "$LATEST" })
      .end(JSON.stringify(reply?.result ?? null));
  });
  return {
    endpoint: `http://127.0.0.1:${server.port}`,
    invocations,
    invocationsOf,
    script: (next) => {
      replies = next;
    },
    close: () => server.close(),
  };
};
