import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local OTLP/HTTP endpoint that reads and drops every export: what a collector costs the sender
 * (a request per flushed batch), without a collector's own work on this shared machine.
 */
export const startOtlpSink = async (): Promise<{ url: string; server: Server }> => {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200).end("{}"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1/traces`, server };
};
