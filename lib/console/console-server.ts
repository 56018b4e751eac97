import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createConsoleApp } from "./console-app.js";
import type { ConsoleDeps } from "./console-deps.js";
import { readHtmx } from "./htmx-asset.js";

/** The only address the console listens on: never another interface. */
const CONSOLE_HOST = "127.0.0.1";

/** A running console. */
export interface RunningConsole {
  /** The address to open, its token in the fragment: print it only to the operator. */
  readonly url: string;
  readonly port: number;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/** A fresh token: 256 random bits, URL-safe. */
const newConsoleToken = (): string => randomBytes(32).toString("base64url");

/**
 * Starts the console on 127.0.0.1 (`port` 0: any free port) with a token of its own, which
 * every request but a navigation must carry, and a form token every change must carry (see
 * request-guard.ts).
 */
export const startConsole = async (
  deps: ConsoleDeps,
  options: { readonly port?: number | undefined } = {},
): Promise<RunningConsole> => {
  const token = newConsoleToken();
  const formToken = newConsoleToken();
  const htmx = readHtmx();
  // The app checks Host against the port, which is known once listening: built on first request.
  let fetcher: ((request: Request) => Response | Promise<Response>) | undefined;
  const server = serve({
    fetch: (request) => {
      if (fetcher === undefined) return new Response("starting", { status: 503 });
      return fetcher(request);
    },
    hostname: CONSOLE_HOST,
    port: options.port ?? 0,
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.once("listening", () => resolve((server.address() as AddressInfo).port));
  });
  fetcher = createConsoleApp(deps, { port, token, formToken }, { htmx: () => htmx }).fetch;
  return {
    url: `http://${CONSOLE_HOST}:${port}/#token=${token}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        if ("closeAllConnections" in server) server.closeAllConnections();
      }),
  };
};
