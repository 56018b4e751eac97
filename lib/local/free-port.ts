import { createServer } from "node:net";

/**
 * Asks the OS for a free loopback port. Another process may take it before the caller binds it,
 * so callers that cannot bind port 0 themselves retry on a bind failure.
 */
export const findFreePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen({ port: 0, host: "127.0.0.1" }, () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : undefined;
      server.close(() =>
        port === undefined ? reject(new Error("no port assigned")) : resolve(port),
      );
    });
  });
