import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type AdversaryMark, markOf } from "../support/adversarial-producer.js";
import { bodyFingerprint } from "../support/guarantee-checks.js";
import { hostileText } from "../support/hostile-text.js";
import { streamFor } from "../support/random-streams.js";
import { type EventTemper, Reply, replyFor } from "./chaos-script.js";

/** Where forged copies point: `${url}/forged/${eventId}`, so the receiver still names the event. */
export const FORGED_PATH = "forged/";

/** One call the receiver saw. Times are this process's `Date.now()`. */
export interface ChaosCall {
  /** The event the URL path names (the envelope's id, set when the event was made). */
  readonly eventId: string;
  /** SHA-256 of the body: which envelope's payload the call carried. */
  readonly fingerprint: string;
  /** The hostile mark of the payload, if it was a forged or conflicting one. */
  readonly mark: AdversaryMark | undefined;
  readonly headerEventId: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly attempt: number;
  readonly reply: Reply;
  readonly startedAt: number;
  /** When the reply went out or the connection closed, whichever came first. */
  endedAt?: number;
}

export interface ChaosReceiverOptions {
  readonly seed: number;
  /** The callers' timeout: a slow reply comes this long plus a little after the call started. */
  readonly targetTimeoutMs: number;
  /** Seconds a 429 asks the caller to wait. */
  readonly retryAfterSeconds?: number;
  /** An event's temper when the run sets it rather than the seed (the bulky events'). */
  readonly temperFor?: (eventId: string) => EventTemper | undefined;
}

export interface ChaosReceiver {
  /** `http://127.0.0.1:<port>`; an event's target is `${url}/${eventId}`. */
  readonly url: string;
  readonly calls: readonly ChaosCall[];
  stop(): Promise<void>;
}

const STATUS: Record<Reply, number> = {
  [Reply.OK]: 200,
  [Reply.SERVER_ERROR]: 503,
  [Reply.TOO_MANY_REQUESTS]: 429,
  [Reply.SLOW]: 200,
  [Reply.RESET]: 0,
  [Reply.BAD_REQUEST]: 400,
};

const parsedOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
};

/**
 * A receiver on 127.0.0.1 that fails at random but replayably (see `replyFor`) and records every
 * call: which event, the Idempotency-Key and attempt it carried, when it started and ended, so
 * overlapping calls for one event can be counted afterwards.
 */
export const startChaosReceiver = async (options: ChaosReceiverOptions): Promise<ChaosReceiver> => {
  const calls: ChaosCall[] = [];
  const callsPerEvent = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const retryAfter = String(options.retryAfterSeconds ?? 1);
  const bodies = streamFor(options.seed, "receiver-bodies");

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const startedAt = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const path = decodeURIComponent((request.url ?? "/").slice(1));
    const eventId = path.startsWith(FORGED_PATH) ? path.slice(FORGED_PATH.length) : path;
    const callIndex = callsPerEvent.get(eventId) ?? 0;
    callsPerEvent.set(eventId, callIndex + 1);
    const reply = replyFor(options.seed, eventId, callIndex, options.temperFor?.(eventId));
    const call: ChaosCall = {
      eventId,
      fingerprint: bodyFingerprint(body),
      mark: markOf(parsedOrUndefined(body)),
      headerEventId: header(request, "ricochet-event-id"),
      idempotencyKey: header(request, "idempotency-key"),
      attempt: Number(header(request, "ricochet-attempt") ?? 0),
      reply,
      startedAt,
    };
    calls.push(call);
    const ended = (): void => {
      call.endedAt ??= Date.now();
    };
    response.on("finish", ended);
    response.on("close", ended);

    const answer = (): void => {
      if (response.destroyed) return;
      response.writeHead(
        STATUS[reply],
        reply === Reply.TOO_MANY_REQUESTS ? { "Retry-After": retryAfter } : {},
      );
      // An error's body is a terminal escape (issue #31, finding 7), from a stream of its own.
      response.end(STATUS[reply] >= 400 ? `${reply} ${hostileText(bodies)}` : reply);
    };
    switch (reply) {
      case Reply.RESET:
        ended();
        request.socket.destroy();
        return;
      case Reply.SLOW: {
        const timer = setTimeout(() => {
          timers.delete(timer);
          answer();
        }, options.targetTimeoutMs + 500);
        timers.add(timer);
        return;
      }
      default:
        answer();
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    stop: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
