import type { IncomingMessage } from "node:http";
import { startReceiver } from "../adapters/targets/local-servers.js";

/*
 * No Lambda emulator runs here, so this loopback server speaks the part of the Lambda Invoke REST
 * API Ricochet uses (`POST /2015-03-31/functions/{name}/invocations`, synchronous) and the real
 * `@aws-sdk/client-lambda` talks to it. It answers as Lambda does: 200 with the function's result,
 * 200 with `X-Amz-Function-Error` and the runtime's `{ errorType, errorMessage }` payload, or 404
 * `ResourceNotFoundException` for a function that does not exist. What each function does is the
 * caller's: the test stand-in scripts replies, the fake operator function runs the real use case.
 */

/** What a function did with one invocation, as the Lambda runtime reports it. */
export type FunctionReply =
  | { readonly result: unknown }
  | {
      readonly error: { readonly errorType: string; readonly errorMessage: string };
      /** As Lambda sets `X-Amz-Function-Error`; `Unhandled` unless the test needs `Handled`. */
      readonly functionError?: "Unhandled" | "Handled";
    };

/** One Invoke call as the server read it. */
interface InvokeCall {
  readonly functionName: string;
  /** The request path, as the SDK built it. */
  readonly path: string;
  /** The event the function receives (the request body, parsed). */
  readonly event: unknown;
  readonly headers: IncomingMessage["headers"];
}

/** Runs one invocation; `undefined` when no function of that name exists. */
export type InvokeHandler = (
  call: InvokeCall,
) => FunctionReply | undefined | Promise<FunctionReply | undefined>;

export interface LoopbackLambda {
  /** The endpoint to give the Lambda client. */
  readonly endpoint: string;
  close(): Promise<void>;
}

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

const NOT_FOUND = JSON.stringify({
  __type: "ResourceNotFoundException",
  message: "no such function",
});

/** Starts the server on 127.0.0.1; close it after the tests. */
export const startLoopbackLambda = async (handler: InvokeHandler): Promise<LoopbackLambda> => {
  const server = await startReceiver((request, response) => {
    const path = request.url.split("?")[0] ?? "";
    const match = INVOKE_PATH.exec(path);
    const notFound = () =>
      response.writeHead(404, { "Content-Type": "application/json" }).end(NOT_FOUND);
    if (request.method !== "POST" || match === null) {
      notFound();
      return;
    }
    const call: InvokeCall = {
      functionName: decodeURIComponent(match[1] ?? ""),
      path,
      event: JSON.parse(request.body),
      headers: request.headers,
    };
    void Promise.resolve(handler(call)).then((reply) => {
      if (reply === undefined) {
        notFound();
      } else if ("error" in reply) {
        response
          .writeHead(200, {
            "Content-Type": "application/json",
            "X-Amz-Function-Error": reply.functionError ?? "Unhandled",
          })
          .end(JSON.stringify({ ...reply.error, trace: [] }));
      } else {
        response
          .writeHead(200, {
            "Content-Type": "application/json",
            "X-Amz-Executed-Version": "$LATEST",
          })
          .end(JSON.stringify(reply.result ?? null));
      }
    });
  });
  return { endpoint: `http://127.0.0.1:${server.port}`, close: () => server.close() };
};
