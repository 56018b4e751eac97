import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { FLAKY_FAILURES, SmokeBehaviour } from "./smoke-scenarios.js";

/** The smoke's HTTP target: answers each scenario's calls as its behaviour says. */
export interface SmokeReceiver {
  /** The port it listens on; targets name it behind the host the orchestrator reaches it by. */
  readonly port: number;
  /** Calls received so far for an event (by its `Idempotency-Key`). */
  calls(eventId: string): number;
  /** From now on a `recovering` target answers 200. */
  recover(): void;
  /** Closes the server and every open (kept-alive) connection. */
  stop(): Promise<void>;
}

/** The path a scenario's target calls: the behaviour is in the URL, so no state is shared. */
export const smokeTargetPath = (behaviour: SmokeBehaviour): string => `/smoke/${behaviour}`;

const BEHAVIOURS = new Set<string>(Object.values(SmokeBehaviour));

/**
 * Starts the smoke receiver on `host` (0.0.0.0 to be reached from LocalStack's Lambda containers
 * through the Docker bridge; loopback in tests) and `port` (0: any free port).
 */
export const startSmokeReceiver = async (options: {
  readonly host: string;
  readonly port?: number | undefined;
}): Promise<SmokeReceiver> => {
  const calls = new Map<string, number>();
  let recovered = false;

  const statusFor = (behaviour: string, call: number): number => {
    switch (behaviour) {
      case SmokeBehaviour.OK:
        return 200;
      case SmokeBehaviour.FLAKY:
        return call <= FLAKY_FAILURES ? 503 : 200;
      case SmokeBehaviour.BROKEN:
        return 400;
      case SmokeBehaviour.RECOVERING:
        return recovered ? 200 : 400;
      default:
        return 404;
    }
  };

  const answer = (request: IncomingMessage, response: ServerResponse): void => {
    // Drain the body: it is not needed, but an unread body stalls the kept-alive connection.
    request.resume();
    const behaviour = /^\/smoke\/([a-z]+)$/.exec(request.url ?? "")?.[1] ?? "";
    const key = request.headers["idempotency-key"];
    if (!BEHAVIOURS.has(behaviour) || typeof key !== "string") {
      response.writeHead(404).end();
      return;
    }
    const call = (calls.get(key) ?? 0) + 1;
    calls.set(key, call);
    response.writeHead(statusFor(behaviour, call), { "content-type": "text/plain" });
    response.end(`smoke ${behaviour}, call ${call}\n`);
  };

  const server = createServer(answer);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    calls: (eventId) => calls.get(eventId) ?? 0,
    recover: () => {
      recovered = true;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
