import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  type AddressInfo,
  createServer as createTcpServer,
  type Socket,
  type Server as TcpServer,
} from "node:net";

/*
 * Real servers on 127.0.0.1 for adapter tests: an HTTP receiver that records what it saw, and a
 * raw TCP server for misbehaviour HTTP servers cannot express (never answering, resetting).
 */

/** One request as the receiver saw it. */
interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

export interface LocalReceiver {
  readonly port: number;
  readonly seen: SeenRequest[];
  /** TCP connections accepted, requests or not. */
  connections(): number;
  close(): Promise<void>;
}

export type Handler = (request: SeenRequest, response: ServerResponse) => void;

const listen = async (server: Server | TcpServer, host = "127.0.0.1"): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
};

/**
 * An HTTP server on 127.0.0.1 (or another loopback `host`, such as 127.0.0.2) that reads each
 * request whole, records it, then calls `handler`.
 */
export const startReceiver = async (
  handler: Handler,
  host = "127.0.0.1",
): Promise<LocalReceiver> => {
  const seen: SeenRequest[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      seen.push(request);
      handler(request, res);
    });
  });
  server.on("connection", () => {
    connections += 1;
  });
  const port = await listen(server, host);
  return {
    port,
    seen,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

export interface LocalTcpServer {
  readonly port: number;
  close(): Promise<void>;
}

/** A raw TCP server on 127.0.0.1 handing each accepted socket to `onSocket`. */
export const startTcpServer = async (
  onSocket: (socket: Socket) => void,
): Promise<LocalTcpServer> => {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
    onSocket(socket);
  });
  const port = await listen(server);
  return {
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/** A port that was free a moment ago and has nothing listening now. */
export const closedPort = async (): Promise<number> => {
  const server = createTcpServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};
