import { describe, expect, it } from "vitest";
import type {
  OrchestratorContext,
  OrchestratorDeps,
} from "../../../lib/app/orchestrator/orchestrator-context.js";
import { tracedContext } from "../../../lib/app/orchestrator/traced-steps.js";
import type { MessageSchedule } from "../../../lib/core/ports.js";
import type { TraceContext } from "../../../lib/core/trace-context.js";
import { type SpanAttributes, SpanName, type Tracer } from "../../../lib/core/tracing.js";

/*
 * The per-message wrapping of the store and the queues: which calls become spans, what those
 * spans say, and that everything else reaches the port untouched.
 */

interface RecordedSpan {
  readonly name: string;
  readonly parent: TraceContext | undefined;
  readonly attributes: SpanAttributes;
  ended?: { readonly attributes: SpanAttributes | undefined; readonly failed: boolean };
  readonly context: TraceContext;
}

const recordingTracer = () => {
  const spans: RecordedSpan[] = [];
  const tracer: Tracer = {
    start: (name, parent, attributes = {}) => {
      const span: RecordedSpan = {
        name,
        parent,
        attributes,
        context: {
          traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
          parentId: (spans.length + 1).toString(16).padStart(16, "0"),
          sampled: true,
        },
      };
      spans.push(span);
      return {
        context: span.context,
        end: (endAttributes, failed) => {
          span.ended = { attributes: endAttributes, failed: failed === true };
        },
      };
    },
  };
  return { tracer, spans };
};

/** A store written as a class with private state, as a Proxy must keep working. */
class ClassStore {
  readonly #claims: string[] = [];
  readonly sent: MessageSchedule[] = [];
  async claim(request: { eventId: string }) {
    this.#claims.push(request.eventId);
    return { kind: "claimed" as const };
  }
  async recordResult() {
    throw new TypeError("the table is gone");
  }
  async get(eventId: string) {
    return this.#claims.includes(eventId) ? { eventId } : undefined;
  }
  async send(_body: string, schedule: MessageSchedule, _delaySeconds: number) {
    this.sent.push(schedule);
  }
}

const MESSAGE_SPAN: TraceContext = {
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  parentId: "00f067aa0ba902b7",
  sampled: true,
};

const setUp = () => {
  const port = new ClassStore();
  const { tracer, spans } = recordingTracer();
  const ctx = {
    deps: { store: port, ingress: port, deadLetters: port } as unknown as OrchestratorDeps,
  } as OrchestratorContext;
  const { deps } = tracedContext(ctx, tracer, MESSAGE_SPAN, "ev-1");
  return { port, spans, deps };
};

describe("a message's traced steps", () => {
  it("make the claim a child span of the message, named for the event and ended with its verdict", async () => {
    const { spans, deps } = setUp();
    await deps.store.claim({ eventId: "ev-1" } as never);
    expect(spans).toEqual([
      expect.objectContaining({
        name: SpanName.CLAIM,
        parent: MESSAGE_SPAN,
        attributes: { "ricochet.event_id": "ev-1" },
        ended: { attributes: { "ricochet.claim": "claimed" }, failed: false },
      }),
    ]);
  });

  it("mark a failed write's span failed with the error's name, and rethrow the error itself", async () => {
    const { spans, deps } = setUp();
    await expect(deps.store.recordResult({} as never)).rejects.toThrow("the table is gone");
    expect(spans.map((span) => [span.name, span.attributes["ricochet.write"], span.ended])).toEqual(
      [
        [
          SpanName.RESULT_WRITE,
          "result",
          { attributes: { "error.type": "TypeError" }, failed: true },
        ],
      ],
    );
  });

  it("leave reads untraced and reaching the port's own state", async () => {
    const { spans, deps } = setUp();
    await deps.store.claim({ eventId: "ev-1" } as never);
    expect(await deps.store.get("ev-1")).toEqual({ eventId: "ev-1" });
    expect(spans.map((span) => span.name)).toEqual([SpanName.CLAIM]);
  });

  it("send a retry's message with the send's span as its parent, not the message's", async () => {
    const { port, spans, deps } = setUp();
    await deps.ingress.send("{}", { generation: 2, trace: MESSAGE_SPAN }, 5);
    const [send] = spans;
    expect(send?.name).toBe(SpanName.RESEND);
    expect(send?.attributes).toEqual({
      "ricochet.event_id": "ev-1",
      "ricochet.generation": 2,
      "ricochet.delay_seconds": 5,
    });
    expect(port.sent).toEqual([{ generation: 2, trace: send?.context }]);
  });
});
