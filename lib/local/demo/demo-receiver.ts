import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type DemoEvent, respond } from "./demo-scenario.js";

/** The demo's HTTP target, on 127.0.0.1. */
export interface DemoReceiver {
  /** Base URL; an event's target is `${url}/hooks/${eventId}`. */
  readonly url: string;
  readonly port: number;
  /** Calls received so far for an event. */
  calls(eventId: string): number;
  /** Events answered with a 2xx more than once: at-least-once delivery made visible. */
  duplicateDeliveries(): number;
  /** Closes the server and every open connection, held calls included. */
  stop(): Promise<void>;
}

const HOOK_PATH = /^\/hooks\/([^/?]+)/;

/**
 * Starts the demo receiver: it answers each call as its event's seeded behaviour says, keyed by
 * the `Idempotency-Key` Ricochet sends (the path's id as a fallback).
 */
export const startDemoReceiver = async (events: readonly DemoEvent[]): Promise<DemoReceiver> => {
  const byId = new Map(events.map((event) => [event.eventId, event]));
  const calls = new Map<string, number>();
  const successes = new Map<string, number>();

  const answer = (request: IncomingMessage, response: ServerResponse): void => {
    // Drain the body: the demo does not need it, but an unread body stalls keep-alive.
    request.resume();
    const key = request.headers["idempotency-key"];
    const eventId =
      typeof key === "string"
        ? key
        : decodeURIComponent(HOOK_PATH.exec(request.url ?? "")?.[1] ?? "");
    const event = byId.get(eventId);
    if (event === undefined) {
      response.writeHead(404).end();
      return;
    }
    const call = (calls.get(eventId) ?? 0) + 1;
    calls.set(eventId, call);
    const decision = respond(event, call);
    // A held call is left open: the caller's timeout ends it, or stop() does.
    if (decision.kind === "no_answer") return;
    response.writeHead(decision.status, { ...decision.headers, "content-type": "text/plain" });
    response.end(`demo ${event.behaviour}, call ${call}\n`);
    if (decision.status < 300) successes.set(eventId, (successes.get(eventId) ?? 0) + 1);
  };

  const server = createServer(answer);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    calls: (eventId) => calls.get(eventId) ?? 0,
    duplicateDeliveries: () => [...successes.values()].filter((count) => count > 1).length,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
