import diagnostics from "node:diagnostics_channel";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, Socket } from "node:net";
import type { ReceiverCall } from "../support/seeded-receiver.js";

/** How a target of the noisy-neighbour scenario behaves. */
export const TargetKind = {
  HEALTHY: "healthy",
  /** Answers 200, but only after {@link NoisyTargetsOptions.slowMs}. */
  SLOW: "slow",
  /** Refuses connections, then accepts and never answers, then recovers (see {@link Outage}). */
  DOWN: "down",
} as const;
export type TargetKind = (typeof TargetKind)[keyof typeof TargetKind];

/** The down target's outage, counted from {@link NoisyTargets.startOutage}. */
export interface Outage {
  /** Nothing listens on its port: every call is refused at once. */
  readonly refusedMs: number;
  /** Then a server accepts and never answers: every call runs into its timeout. */
  readonly hangingMs: number;
}

/** A port with nothing behind it yet, then a server that never answers, then a healthy one. */
const Phase = { REFUSED: "refused", HANGING: "hanging", UP: "up" } as const;
type Phase = (typeof Phase)[keyof typeof Phase];

interface NoisyTarget {
  readonly kind: TargetKind;
  /** `http://127.0.0.1:<port>`: one origin, so one breaker key, per target. */
  readonly baseUrl: string;
}

export interface NoisyTargetsOptions {
  readonly kinds: readonly TargetKind[];
  readonly slowMs: number;
  /** Required when a target is {@link TargetKind.DOWN}. */
  readonly outage?: Outage;
}

export interface NoisyTargets {
  readonly targets: readonly NoisyTarget[];
  /** The calls answered, per event id (the event id is the URL's last segment). */
  readonly calls: ReadonlyMap<string, readonly ReceiverCall[]>;
  /** When each event was first answered 200 (ms since epoch). */
  readonly deliveredAt: ReadonlyMap<string, number>;
  /**
   * When each call reached the down target while it was down: connection attempts refused (seen
   * in this process through `net.client.socket`, as nothing listens), then requests left hanging.
   */
  readonly callsWhileDown: readonly number[];
  /** Starts the down target's outage clock; its port refuses from now on. */
  startOutage(): void;
  /** When the outage began and ended; undefined until it has. */
  outageStartedAt(): number | undefined;
  recoveredAt(): number | undefined;
  /** Why the outage could not run as planned (its port was taken meanwhile), if it could not. */
  failure(): Error | undefined;
  stop(): Promise<void>;
}

const listen = (server: Server, port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });

const close = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.closeAllConnections();
    server.close(() => resolve());
  });

const eventIdOf = (request: IncomingMessage): string =>
  decodeURIComponent((request.url ?? "/").split("/").pop() ?? "");

/**
 * Starts one HTTP server on 127.0.0.1 per kind. The down target's port is reserved and released
 * at once, so that until the outage turns to hanging nothing listens on it: a refused connection
 * is what a crashed host gives, a hanging one what an overloaded or black-holed one gives.
 */
export const startNoisyTargets = async (options: NoisyTargetsOptions): Promise<NoisyTargets> => {
  const calls = new Map<string, ReceiverCall[]>();
  const deliveredAt = new Map<string, number>();
  const callsWhileDown: number[] = [];
  const servers: Server[] = [];
  const timers: NodeJS.Timeout[] = [];
  let phase: Phase = Phase.REFUSED;
  let startedAt: number | undefined;
  let recoveredAt: number | undefined;
  let failure: Error | undefined;

  const answer = (request: IncomingMessage, response: ServerResponse, delayMs: number): void => {
    const arrivedAt = Date.now();
    request.resume();
    request.on("end", () => {
      const eventId = eventIdOf(request);
      const list = calls.get(eventId) ?? [];
      calls.set(eventId, list);
      list.push({ callIndex: list.length, startedAt: arrivedAt, status: 200 });
      const reply = () => {
        if (!deliveredAt.has(eventId)) deliveredAt.set(eventId, Date.now());
        response.writeHead(200, { "content-type": "text/plain" });
        response.end("ok");
      };
      if (delayMs === 0) reply();
      else timers.push(setTimeout(reply, delayMs));
    });
  };

  const downServer = createServer((request, response) => {
    if (phase === Phase.UP) {
      answer(request, response, 0);
      return;
    }
    // Never answered: the caller's timeout ends the call, `stop` the connection.
    callsWhileDown.push(Date.now());
    request.resume();
  });
  let downPort: number | undefined;
  const onSocket = (message: unknown): void => {
    const socket = (message as { readonly socket?: unknown }).socket;
    if (!(socket instanceof Socket)) return;
    socket.once("connectionAttempt", (_ip: string, port: number) => {
      if (port === downPort && phase === Phase.REFUSED && startedAt !== undefined) {
        callsWhileDown.push(Date.now());
      }
    });
  };

  const targets: NoisyTarget[] = [];
  for (const kind of options.kinds) {
    if (kind === TargetKind.DOWN) {
      if (options.outage === undefined) throw new Error("a down target needs an outage");
      if (downPort !== undefined) throw new Error("one down target at most");
      const probe = createServer();
      downPort = await listen(probe, 0);
      await close(probe);
      diagnostics.subscribe("net.client.socket", onSocket);
      targets.push({ kind, baseUrl: `http://127.0.0.1:${downPort}` });
      continue;
    }
    const delayMs = kind === TargetKind.SLOW ? options.slowMs : 0;
    const server = createServer((request, response) => answer(request, response, delayMs));
    servers.push(server);
    const port = await listen(server, 0);
    targets.push({ kind, baseUrl: `http://127.0.0.1:${port}` });
  }

  return {
    targets,
    calls,
    deliveredAt,
    callsWhileDown,
    startOutage: () => {
      const { outage } = options;
      startedAt = Date.now();
      if (downPort === undefined || outage === undefined) return;
      const port = downPort;
      timers.push(
        setTimeout(() => {
          phase = Phase.HANGING;
          // Another process may have taken the port meanwhile: then the run is void, and says so.
          listen(downServer, port).catch((error: unknown) => {
            failure = new Error(`the down target could not listen again on ${port}`, {
              cause: error,
            });
          });
        }, outage.refusedMs),
        setTimeout(() => {
          phase = Phase.UP;
          recoveredAt = Date.now();
        }, outage.refusedMs + outage.hangingMs),
      );
    },
    outageStartedAt: () => startedAt,
    recoveredAt: () => recoveredAt,
    failure: () => failure,
    stop: async () => {
      for (const timer of timers) clearTimeout(timer);
      diagnostics.unsubscribe("net.client.socket", onSocket);
      await Promise.all([...servers, downServer].map(close));
    },
  };
};
