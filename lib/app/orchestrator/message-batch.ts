import { MetricName } from "../../contract/metric-names.js";
import { type EnvelopeParseResult, parseEnvelope } from "../../core/envelope.js";
import type { ReceivedMessage } from "../../core/ports.js";
import { callMsOf, type MessageVerdict, type OrchestratorContext } from "./orchestrator-context.js";

/*
 * A batch is worked through with the invocation's clock in view: a message the function cannot
 * finish before its deadline is not started but handed back, at once, for another invocation.
 * The orchestrator works through the batch; this module only says which messages may start,
 * and keeps the ids that must stay on the queue.
 */

/** The shortest call the orchestrator will start; less than this is not worth an attempt. */
const MIN_CALL_MS = 1_000;

/** How long a message's call may take when `remainingMs` is left: all of it but the margin. */
export const callBudgetOf = ({ deps }: OrchestratorContext, remainingMs: number): number =>
  Math.max(MIN_CALL_MS, remainingMs - deps.leaseMarginMs);

/** A message of the batch there is time to finish: its parsed envelope and its call budget. */
interface StartedMessage {
  /**
   * Parsed once: the drain check and the attempt both need it, and it is the costliest pure
   * step of a message (schema validation of up to 1 MiB).
   */
  readonly parsed: EnvelopeParseResult;
  readonly callBudgetMs: number;
}

/**
 * One invocation's batch as it is worked through. Its sends are gathered (when the queue can):
 * each message counts as running from {@link MessageBatch.start} to {@link MessageBatch.end},
 * so the invocation's retries leave in one request.
 */
export interface MessageBatch {
  /** The context the batch's messages run in: the orchestrator's, its sends gathered. */
  readonly ctx: OrchestratorContext;
  /**
   * Starts the message if there is time left to finish it; else drains it (hands it back at
   * once, to stay on the queue) and answers undefined.
   */
  start(message: ReceivedMessage): Promise<StartedMessage | undefined>;
  /** Notes a started message's verdict: one left for later stays on the queue. */
  settle(message: ReceivedMessage, verdict: MessageVerdict): void;
  /** A started message is done with, however it ended: the batch's sends stop waiting on it. */
  end(): void;
  /**
   * The ids of the messages that must stay on the queue (SQS partial batch response): those
   * left for later, and those drained for want of time.
   */
  readonly leftOnQueue: readonly string[];
}

/**
 * The time a message needs before the function ends: its call, cut to what a whole invocation
 * can afford (`capacityMs`), plus the margin. Without the cut, a target slower than the function
 * timeout would be drained on every receive and never attempted.
 */
const timeNeededMs = (
  { deps }: OrchestratorContext,
  parsed: EnvelopeParseResult,
  capacityMs: number,
): number => (parsed.ok ? callMsOf(parsed.envelope, capacityMs) : 0) + deps.leaseMarginMs;

const drain = async ({ deps }: OrchestratorContext, message: ReceivedMessage): Promise<void> => {
  deps.metrics.count(MetricName.DRAINED);
  try {
    // Visible again at once: draining must not delay the event, only hand it on.
    await deps.ingress.changeVisibility(message, 0);
  } catch (error) {
    deps.log.warn("could not release a drained message; it returns after its visibility timeout", {
      messageId: message.messageId,
      error: String(error),
    });
  }
};

/** Opens a batch of the invocation that has `remainingMs` left. */
export const openBatch = (
  batchCtx: OrchestratorContext,
  remainingMs: () => number,
): MessageBatch => {
  const gathering = batchCtx.deps.ingress.gatherSends?.();
  const ctx =
    gathering === undefined
      ? batchCtx
      : { ...batchCtx, deps: { ...batchCtx.deps, ingress: gathering.queue } };
  const leftOnQueue: string[] = [];
  // What the invocation had at the start bounds every call in it (a fresh one: the timeout).
  // Two margins: one is kept after the call, the other absorbs the time the batch has used
  // before a message starts, so a long call that fits a fresh invocation is not drained.
  const capacityMs = Math.max(MIN_CALL_MS, remainingMs() - 2 * ctx.deps.leaseMarginMs);
  return {
    ctx,
    leftOnQueue,
    start: async (message) => {
      const parsed = parseEnvelope(message.body);
      if (remainingMs() < timeNeededMs(ctx, parsed, capacityMs)) {
        await drain(ctx, message);
        leftOnQueue.push(message.messageId);
        return undefined;
      }
      gathering?.begin();
      return { parsed, callBudgetMs: callBudgetOf(ctx, remainingMs()) };
    },
    settle: (message, verdict) => {
      if (verdict.kind === "retry_later") leftOnQueue.push(message.messageId);
    },
    end: () => gathering?.end(),
  };
};
