import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One call the receiver answered. */
export interface ReceiverCall {
  readonly callIndex: number;
  readonly startedAt: number;
  readonly status: number;
}

/**
 * Whether call `callIndex` for `eventId` fails with 503: a hash of seed, event and call only, so
 * every contender meets exactly the same failures whatever the order or timing of its calls.
 */
export const seededFailure = (
  seed: number,
  eventId: string,
  callIndex: number,
  rate: number,
): boolean => seededFraction(`${seed}:${eventId}:${callIndex}`) < rate;

/** A fraction in [0, 1) drawn from `key` alone. */
const seededFraction = (key: string): number =>
  createHash("sha256").update(key).digest().readUInt32BE(0) / 2 ** 32;

/** How long the receiver takes to answer: each call draws from [minMs, maxMs]. */
export interface AnswerLatency {
  readonly minMs: number;
  readonly maxMs: number;
}

/**
 * The answer time of call `callIndex` for `eventId`, drawn like {@link seededFailure} (from its own
 * key), so every contender waits exactly as long for the same call.
 */
export const seededLatencyMs = (
  seed: number,
  eventId: string,
  callIndex: number,
  latency: AnswerLatency,
): number =>
  latency.minMs +
  Math.floor(
    seededFraction(`latency:${seed}:${eventId}:${callIndex}`) * (latency.maxMs - latency.minMs + 1),
  );

/** The benchmark's target: an HTTP server on 127.0.0.1 keyed by the event id in the path. */
export interface SeededReceiver {
  readonly baseUrl: string;
  /** Calls per event id, in arrival order. */
  readonly calls: ReadonlyMap<string, readonly ReceiverCall[]>;
  /** Events answered 200 at least once. */
  delivered(): number;
  /** When the last first-200 for an event was answered (ms since epoch). */
  lastDeliveryAt(): number;
  totalCalls(): number;
  stop(): Promise<void>;
}

/**
 * Starts a receiver that answers 503 to a seeded `failureRate` of calls and 200 otherwise, after a
 * seeded `latency` if one is given. The event id is the last path segment: every contender calls
 * `${baseUrl}/${eventId}`.
 */
export const startSeededReceiver = async (options: {
  readonly seed: number;
  readonly failureRate: number;
  /** Answer at once when absent. */
  readonly latency?: AnswerLatency | undefined;
}): Promise<SeededReceiver> => {
  const calls = new Map<string, ReceiverCall[]>();
  const deliveredIds = new Set<string>();
  let lastDeliveryAt = 0;
  let total = 0;
  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const startedAt = Date.now();
    // The body is drained, not read: the benchmark measures delivery, not parsing.
    request.resume();
    request.on("end", () => {
      const eventId = decodeURIComponent((request.url ?? "/").split("/").pop() ?? "");
      const list = calls.get(eventId) ?? [];
      calls.set(eventId, list);
      const callIndex = list.length;
      const status = seededFailure(options.seed, eventId, callIndex, options.failureRate)
        ? 503
        : 200;
      list.push({ callIndex, startedAt, status });
      total += 1;
      const answer = () => {
        if (status === 200 && !deliveredIds.has(eventId)) {
          deliveredIds.add(eventId);
          lastDeliveryAt = Date.now();
        }
        response.writeHead(status, { "content-type": "text/plain" });
        response.end(status === 200 ? "ok" : "unavailable");
      };
      if (options.latency === undefined) answer();
      else setTimeout(answer, seededLatencyMs(options.seed, eventId, callIndex, options.latency));
    });
  };
  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    calls,
    delivered: () => deliveredIds.size,
    lastDeliveryAt: () => lastDeliveryAt,
    totalCalls: () => total,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
