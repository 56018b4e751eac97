import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ReceiverCall } from "../support/seeded-receiver.js";

/** Which of the scenario's two targets a call reached. */
export const SaturatingTarget = { PARTNER: "partner", HEALTHY: "healthy" } as const;
export type SaturatingTarget = (typeof SaturatingTarget)[keyof typeof SaturatingTarget];

/** How the saturating partner and its healthy neighbour answer. */
export interface SaturationShape {
  /** Calls the partner works on at once; one more is answered 503 at once. */
  readonly capacity: number;
  /** The partner's answer time with one call in flight. */
  readonly baseLatencyMs: number;
  /** How many times `baseLatencyMs` an answer takes with `capacity` calls in flight. */
  readonly latencyAtCapacity: number;
  /** The healthy neighbour's answer time, whatever its load. */
  readonly healthyLatencyMs: number;
}

/** One call either target answered: arrival (ms since epoch), status, and when it was answered. */
export interface SaturatingCall {
  readonly eventId: string;
  readonly target: SaturatingTarget;
  readonly at: number;
  readonly answeredAt: number;
  readonly status: number;
}

/**
 * The partner's answer time with `inFlight` calls (this one included): it grows linearly from
 * `baseLatencyMs` at one call to `latencyAtCapacity` times that at `capacity`, as a server whose
 * workers share one resource slows with each call it takes on.
 */
export const latencyAt = (inFlight: number, shape: SaturationShape): number => {
  const growth = shape.capacity <= 1 ? 0 : (inFlight - 1) / (shape.capacity - 1);
  return Math.round(shape.baseLatencyMs * (1 + (shape.latencyAtCapacity - 1) * growth));
};

/** The most 200s a second the partner can give: `capacity` calls each taking its longest. */
export const capacityPerSecond = (shape: SaturationShape): number =>
  (shape.capacity * 1000) / latencyAt(shape.capacity, shape);

export interface SaturatingPartners {
  /** `http://127.0.0.1:<port>` of the saturating partner and of the healthy neighbour. */
  readonly partnerUrl: string;
  readonly healthyUrl: string;
  /** The calls per event id, for the contenders (Ricochet reads its retry timing from them). */
  readonly calls: ReadonlyMap<string, readonly ReceiverCall[]>;
  /** Every answered call, in the order they were answered. */
  readonly log: readonly SaturatingCall[];
  /** When each event was first answered 200 (ms since epoch). */
  readonly deliveredAt: ReadonlyMap<string, number>;
  stop(): Promise<void>;
}

const eventIdOf = (request: IncomingMessage): string =>
  decodeURIComponent((request.url ?? "/").split("/").pop() ?? "");

const listen = (server: Server): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });

const close = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * Two servers on 127.0.0.1: a partner that slows with every call in flight and answers 503 (no
 * `Retry-After`: an overloaded server seldom knows when it will cope) past its capacity, and a
 * healthy neighbour that answers 200 after a fixed time. Events of both share one queue and one
 * function, so what a contender does to the partner shows in the neighbour's latency.
 */
export const startSaturatingPartners = async (
  shape: SaturationShape,
): Promise<SaturatingPartners> => {
  const calls = new Map<string, ReceiverCall[]>();
  const log: SaturatingCall[] = [];
  const deliveredAt = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;

  const record = (eventId: string, target: SaturatingTarget, at: number, status: number) => {
    const list = calls.get(eventId) ?? [];
    calls.set(eventId, list);
    list.push({ callIndex: list.length, startedAt: at, status });
    const answeredAt = Date.now();
    log.push({ eventId, target, at, answeredAt, status });
    if (status === 200 && !deliveredAt.has(eventId)) deliveredAt.set(eventId, answeredAt);
  };

  const later = (ms: number, then: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      then();
    }, ms);
    timers.add(timer);
  };

  const reply = (response: ServerResponse, status: number): void => {
    response.writeHead(status, { "content-type": "text/plain" });
    response.end(status === 200 ? "ok" : "overloaded");
  };

  const partner = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const at = Date.now();
      const eventId = eventIdOf(request);
      if (inFlight >= shape.capacity) {
        record(eventId, SaturatingTarget.PARTNER, at, 503);
        reply(response, 503);
        return;
      }
      inFlight += 1;
      later(latencyAt(inFlight, shape), () => {
        inFlight -= 1;
        record(eventId, SaturatingTarget.PARTNER, at, 200);
        reply(response, 200);
      });
    });
  });
  const healthy = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const at = Date.now();
      later(shape.healthyLatencyMs, () => {
        record(eventIdOf(request), SaturatingTarget.HEALTHY, at, 200);
        reply(response, 200);
      });
    });
  });
  const [partnerPort, healthyPort] = await Promise.all([listen(partner), listen(healthy)]);
  return {
    partnerUrl: `http://127.0.0.1:${partnerPort}`,
    healthyUrl: `http://127.0.0.1:${healthyPort}`,
    calls,
    log,
    deliveredAt,
    stop: async () => {
      for (const timer of timers) clearTimeout(timer);
      await Promise.all([close(partner), close(healthy)]);
    },
  };
};
