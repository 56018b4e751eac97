import { MetricName } from "../../contract/metric-names.js";
import { type EnvelopeParseResult, parseEnvelope } from "../../core/envelope.js";
import type { ReceivedMessage } from "../../core/ports.js";
import { mapWithConcurrency } from "./concurrency.js";
import { callMsOf, type MessageVerdict, type OrchestratorContext } from "./orchestrator-context.js";

/*
 * A batch is worked through with the invocation's clock in view: a message the function cannot
 * finish before its deadline is not started but handed back, at once, for another invocation.
 */

/** The shortest call the orchestrator will start; less than this is not worth an attempt. */
const MIN_CALL_MS = 1_000;

/** How long a message's call may take when `remainingMs` is left: all of it but the margin. */
export const callBudgetOf = ({ deps }: OrchestratorContext, remainingMs: number): number =>
  Math.max(MIN_CALL_MS, remainingMs - deps.leaseMarginMs);

/** Handles one parsed message with a call budget; never throws. */
export type MessageHandler = (
  ctx: OrchestratorContext,
  message: ReceivedMessage,
  parsed: EnvelopeParseResult,
  callBudgetMs: number,
) => Promise<MessageVerdict>;

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

/**
 * Handles a batch, returning the ids of the messages that must stay on the queue (SQS partial
 * batch response): those left for later, and those drained for want of time. The batch's sends
 * are gathered (when the queue can): each message counts as running until it ends or waits on
 * its own send, so the invocation's retries leave in one request.
 */
export const processBatch = async (
  batchCtx: OrchestratorContext,
  handle: MessageHandler,
  messages: readonly ReceivedMessage[],
  remainingMs: () => number,
): Promise<string[]> => {
  const gathering = batchCtx.deps.ingress.gatherSends?.();
  const ctx =
    gathering === undefined
      ? batchCtx
      : { ...batchCtx, deps: { ...batchCtx.deps, ingress: gathering.queue } };
  const { deps } = ctx;
  const failed: string[] = [];
  // What the invocation had at the start bounds every call in it (a fresh one: the timeout).
  // Two margins: one is kept after the call, the other absorbs the time the batch has used
  // before a message starts, so a long call that fits a fresh invocation is not drained.
  const capacityMs = Math.max(MIN_CALL_MS, remainingMs() - 2 * deps.leaseMarginMs);
  await mapWithConcurrency(messages, deps.messageConcurrency, async (message) => {
    // Parsed once: the drain check and the attempt both need it, and it is the costliest
    // pure step of a message (schema validation of up to 1 MiB).
    const parsed = parseEnvelope(message.body);
    if (remainingMs() < timeNeededMs(ctx, parsed, capacityMs)) {
      await drain(ctx, message);
      failed.push(message.messageId);
      return;
    }
    gathering?.begin();
    try {
      const verdict = await handle(ctx, message, parsed, callBudgetOf(ctx, remainingMs()));
      if (verdict.kind === "retry_later") failed.push(message.messageId);
    } finally {
      gathering?.end();
    }
  });
  return failed;
};
