import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ReceiverCall } from "../support/seeded-receiver.js";
import type { PartnerCall } from "./rate-figures.js";

/** The partner's admitted rate over the run: `rate` calls/s from `fromMs` after start. */
export interface RateStep {
  readonly fromMs: number;
  readonly rate: number;
}

export interface RateLimitedPartner {
  /** `http://127.0.0.1:<port>`: the origin whose key static limits are declared under. */
  readonly baseUrl: string;
  /** The calls per event id, for the contenders (Ricochet reads its retry timing from them). */
  readonly calls: ReadonlyMap<string, readonly ReceiverCall[]>;
  /** Every call in arrival order. */
  readonly log: readonly PartnerCall[];
  /** When each event was first answered 200 (ms since epoch). */
  readonly deliveredAt: ReadonlyMap<string, number>;
  /** Starts the schedule's clock; before it the first step's rate holds. */
  start(): void;
  startedAt(): number | undefined;
  stop(): Promise<void>;
}

/** The rate of the last step begun `elapsedMs` into the schedule. */
export const rateAt = (steps: readonly RateStep[], elapsedMs: number): number => {
  let rate = steps[0]?.rate ?? 0;
  for (const step of steps) if (step.fromMs <= elapsedMs) rate = step.rate;
  return rate;
};

/**
 * A token bucket holding one second's tokens: a partner's quota as APIs publish it. On a cut the
 * tokens above the new size go at once, so the lower rate bites immediately, as a real partner's
 * would; 429s carry `Retry-After: 1`, the hint a well-behaved client is meant to honour.
 */
export const startRateLimitedPartner = async (
  steps: readonly RateStep[],
): Promise<RateLimitedPartner> => {
  const calls = new Map<string, ReceiverCall[]>();
  const log: PartnerCall[] = [];
  const deliveredAt = new Map<string, number>();
  let startedAt: number | undefined;
  let tokens = rateAt(steps, 0);
  let refilledAt = Date.now();

  const admit = (now: number): boolean => {
    const rate = rateAt(steps, startedAt === undefined ? 0 : now - startedAt);
    tokens = Math.min(rate, tokens + ((now - refilledAt) / 1000) * rate);
    refilledAt = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };

  const eventIdOf = (request: IncomingMessage): string =>
    decodeURIComponent((request.url ?? "/").split("/").pop() ?? "");

  const server: Server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const at = Date.now();
      const eventId = eventIdOf(request);
      const status = admit(at) ? 200 : 429;
      const list = calls.get(eventId) ?? [];
      calls.set(eventId, list);
      list.push({ callIndex: list.length, startedAt: at, status });
      log.push({ eventId, at, status });
      if (status === 200) {
        if (!deliveredAt.has(eventId)) deliveredAt.set(eventId, at);
        response.writeHead(200, { "content-type": "text/plain" });
        response.end("ok");
      } else {
        response.writeHead(429, { "content-type": "text/plain", "retry-after": "1" });
        response.end("slow down");
      }
    });
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    calls,
    log,
    deliveredAt,
    start: () => {
      startedAt = Date.now();
    },
    startedAt: () => startedAt,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
