import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the receiver does for one call. */
export interface ScriptedReply {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** Wait this long before answering (a slow receiver, or one that outlives the caller's timeout). */
  readonly delayMs?: number;
}

/** One call the receiver saw. */
export interface ReceivedCall {
  readonly eventId: string;
  readonly idempotencyKey: string | undefined;
  readonly attempt: number;
  readonly method: string;
  readonly body: string;
  readonly headers: IncomingMessage["headers"];
  readonly startedAt: number;
  endedAt?: number;
}

/** Decides the reply from the event id and how many calls that event has had (0 for the first). */
export type Script = (eventId: string, callIndex: number) => ScriptedReply;

/**
 * A local HTTP receiver on 127.0.0.1 whose behaviour per event is scripted, and which records
 * every call — the Idempotency-Key it carried, when it started and ended — so tests can assert
 * keys, attempt timing and that no two calls for one event overlapped.
 */
export class ScriptedReceiver {
  public readonly calls: ReceivedCall[] = [];
  private readonly inProgress = new Map<string, number>();
  public overlaps = 0;
  /** Calls of any event in flight at once, now and at most so far (a target's concurrency). */
  private inFlight = 0;
  public peakInFlight = 0;
  private server: Server | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();

  public constructor(private script: Script) {}

  public setScript(script: Script): void {
    this.script = script;
  }

  public async start(): Promise<string> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  public async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  public callsFor(eventId: string): ReceivedCall[] {
    return this.calls.filter((call) => call.eventId === eventId);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const eventId = String(request.headers["ricochet-event-id"] ?? request.url?.slice(1) ?? "");
    const callIndex = this.callsFor(eventId).length;
    const call: ReceivedCall = {
      eventId,
      idempotencyKey: request.headers["idempotency-key"] as string | undefined,
      attempt: Number(request.headers["ricochet-attempt"] ?? 0),
      method: request.method ?? "",
      body: Buffer.concat(chunks).toString("utf8"),
      headers: request.headers,
      startedAt: Date.now(),
    };
    this.calls.push(call);
    const running = this.inProgress.get(eventId) ?? 0;
    if (running > 0) this.overlaps += 1;
    this.inProgress.set(eventId, running + 1);
    this.inFlight += 1;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);

    const reply = this.script(eventId, callIndex);
    let ended = false;
    // A call ends when the receiver answers or when the caller gives up and closes the
    // connection (a timeout): the caller's retry after a timeout is not an overlap.
    const end = (): void => {
      if (ended) return;
      ended = true;
      call.endedAt = Date.now();
      this.inFlight -= 1;
      this.inProgress.set(eventId, (this.inProgress.get(eventId) ?? 1) - 1);
    };
    response.once("close", end);
    const finish = (): void => {
      end();
      if (!response.destroyed) {
        response.writeHead(reply.status, reply.headers ?? {});
        response.end(reply.status >= 400 ? `status ${reply.status}` : "ok");
      }
    };
    if (reply.delayMs === undefined || reply.delayMs <= 0) {
      finish();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      finish();
    }, reply.delayMs);
    this.timers.add(timer);
  }
}
