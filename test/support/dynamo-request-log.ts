import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A pass-through HTTP proxy in front of DynamoDB Local that notes every request's operation (the
 * `X-Amz-Target` header, e.g. `DynamoDB_20120810.Scan` → `Scan`): the request log of a child
 * process (the CLI) that this process's SDK middleware cannot see.
 */
export interface DynamoRequestLog {
  /** The proxy's endpoint, to give a child as its DynamoDB endpoint. */
  readonly endpoint: string;
  /** The operations seen, in order. */
  readonly operations: string[];
  close(): Promise<void>;
}

export const startDynamoRequestLog = async (upstream: string): Promise<DynamoRequestLog> => {
  const target = new URL(upstream);
  const operations: string[] = [];
  const server: Server = createServer((req, res) => {
    const header = req.headers["x-amz-target"];
    operations.push(String(header ?? "").replace(/^.*\./, ""));
    const forward = httpRequest(
      {
        hostname: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    operations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
