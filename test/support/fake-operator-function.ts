import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ENDPOINT_ENV } from "../../lib/adapters/aws-clients.js";
import { type OperatorFunctionDeps, runOperatorRequest } from "../../lib/app/operator-function.js";

/*
 * No Lambda emulator runs here, so a local server plays the Invoke API and answers as the
 * deployed redrive (operator) function would: by running the real use case its handler runs
 * (lib/app/operator-function.ts) against the emulators, or, per function name, by failing in the
 * ways a function can ("throws", "says-nothing").
 */

export interface Invocation {
  readonly path: string;
  readonly request: Record<string, unknown>;
}

export interface FakeOperatorFunction {
  /** Every invocation received, in order. */
  readonly invocations: Invocation[];
  /** The Lambda endpoint, as the SDK's environment variable for the CLI. */
  readonly env: Record<string, string>;
  readonly endpoint: string;
  close(): Promise<void>;
}

const answer = async (deps: OperatorFunctionDeps, name: string, request: unknown) => {
  if (name === "throws") {
    return {
      headers: { "x-amz-function-error": "Unhandled" },
      body: { errorType: "StoreUnavailableError", errorMessage: "table is throttled" },
    };
  }
  if (name === "says-nothing") return { headers: {}, body: null };
  try {
    return { headers: {}, body: await runOperatorRequest(deps, request) };
  } catch (error) {
    // As the Lambda runtime reports a handler's error.
    const { name: errorType, message: errorMessage } = error as Error;
    return { headers: { "x-amz-function-error": "Unhandled" }, body: { errorType, errorMessage } };
  }
};

/** Starts the fake function over `deps`; close it after the tests. */
export const startFakeOperatorFunction = async (
  deps: OperatorFunctionDeps,
): Promise<FakeOperatorFunction> => {
  const invocations: Invocation[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "";
      const name = decodeURIComponent(/\/functions\/([^/]+)\/invocations/.exec(path)?.[1] ?? "");
      const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      invocations.push({ path, request });
      void answer(deps, name, request).then(({ headers, body }) => {
        res.writeHead(200, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    invocations,
    endpoint,
    env: { [ENDPOINT_ENV.LAMBDA]: endpoint },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
