import { MetricName } from "../../contract/metric-names.js";
import { type EnvelopeParseResult, parseEnvelope } from "../../core/envelope.js";
import { errorWithName } from "../../core/errors.js";
import { MessageOrigin, type ReceivedMessage } from "../../core/ports.js";
import { scheduleVerdict } from "../../core/schedule.js";
import { inSpan, NO_TRACING, SpanName } from "../../core/tracing.js";
import { claimAndAttempt } from "./claim-step.js";
import { mapWithConcurrency } from "./concurrency.js";
import { hop, scheduleFirst } from "./hop.js";
import { admitMessage, deadLetterInvalid } from "./message-admission.js";
import { callBudgetOf, openBatch } from "./message-batch.js";
import { holdMessage } from "./message-in-hand.js";
import {
  type MessageVerdict,
  type OrchestratorContext,
  type OrchestratorDeps,
  orchestratorContext,
  scheduleOf,
} from "./orchestrator-context.js";
import { passTargetGate } from "./target-gate.js";
import { tracedContext } from "./traced-steps.js";

export type { MessageVerdict, OrchestratorDeps } from "./orchestrator-context.js";

/** The orchestrator: turns ingress messages into attempts. One instance per process. */
export interface Orchestrator {
  /** Handles one message. Never throws: every failure becomes `retry_later`. */
  processMessage(message: ReceivedMessage, remainingMs: () => number): Promise<MessageVerdict>;
  /**
   * Handles a batch, returning the ids of the messages that must stay on the queue (SQS partial
   * batch response). Messages the function cannot finish before its deadline are not started.
   */
  processBatch(messages: readonly ReceivedMessage[], remainingMs: () => number): Promise<string[]>;
}

/** The event a message names, even when its envelope is invalid (undefined if it names none). */
const eventIdOf = (parsed: EnvelopeParseResult): string | undefined =>
  parsed.ok ? parsed.envelope.eventId : parsed.eventId;

/**
 * One message, step by step: admit it (valid, not forged, its policy clamped), wait if it is not
 * due (a first schedule or a hop), pass its target's gate (breaker, limits) or defer, then claim
 * and attempt. What every step reads of the message is worked out once, on admission.
 */
const handle = async (
  ctx: OrchestratorContext,
  message: ReceivedMessage,
  parsed: EnvelopeParseResult,
  callBudgetMs: number,
): Promise<MessageVerdict> => {
  const { deps } = ctx;
  const tracer = deps.tracer ?? NO_TRACING;
  const admissionSpan = tracer.start(SpanName.ADMISSION, message.trace, {
    "ricochet.event_id": eventIdOf(parsed),
  });
  const admission = admitMessage(ctx, message, parsed);
  admissionSpan.end({ "ricochet.admission": admission.kind }, false);
  if (admission.kind === "invalid") {
    return deadLetterInvalid(ctx, message, admission.problems, admission.eventId);
  }
  const inHand = holdMessage(ctx, message, admission.event, callBudgetMs);
  const { envelope, target } = inHand;

  // SQS delays are whole seconds, so an early copy waits up to a second longer rather than run
  // early (lib/core/schedule.ts).
  const due = scheduleVerdict({
    notBefore: envelope.notBefore,
    messageDueMs: scheduleOf(message).notBeforeMs,
    fromProducer: message.origin === MessageOrigin.PRODUCER,
    nowMs: deps.clock(),
    hopSeconds: deps.hopSeconds,
  });
  if (due.kind === "wait") {
    return due.firstSight ? scheduleFirst(ctx, inHand, due) : hop(ctx, inHand, due);
  }

  if (target.ignoredGroup !== undefined) {
    deps.log.warn(
      "target group ignored: it is not the group the deployment declares its target in",
      {
        eventId: envelope.eventId,
        group: target.ignoredGroup,
        targetKey: target.key,
      },
    );
  }
  const gate = await inSpan(
    tracer,
    SpanName.GATE,
    message.trace,
    { "ricochet.event_id": envelope.eventId, "ricochet.target_key": target.key },
    () => passTargetGate(ctx, inHand),
    (passed) => ({ "ricochet.gate": "deferred" in passed ? "deferred" : "passed" }),
  );
  if ("deferred" in gate) return gate.deferred;
  return gate.during(() => claimAndAttempt(ctx, inHand));
};

/**
 * {@link handle} in the message's span, with a failure turned into `retry_later`: the message
 * stays on the queue. Every step after this one reads the message's trace context as this span's,
 * so that what it re-sends and calls is this span's child (the producer's, with tracing off).
 */
const processMessage = async (
  ctx: OrchestratorContext,
  received: ReceivedMessage,
  parsed: EnvelopeParseResult,
  callBudgetMs: number,
): Promise<MessageVerdict> => {
  const { tracer } = ctx.deps;
  const eventId = eventIdOf(parsed);
  const span = (tracer ?? NO_TRACING).start(SpanName.MESSAGE, received.trace, {
    "messaging.system": "aws_sqs",
    "messaging.operation.type": "process",
    "messaging.message.id": received.messageId,
    "ricochet.event_id": eventId,
    "ricochet.generation": scheduleOf(received).generation,
    "ricochet.origin": received.origin,
  });
  const message = { ...received, trace: span.context };
  const messageCtx = tracer === undefined ? ctx : tracedContext(ctx, tracer, span.context, eventId);
  try {
    const verdict = await handle(messageCtx, message, parsed, callBudgetMs);
    span.end({ "ricochet.verdict": verdict.kind }, false);
    return verdict;
  } catch (error) {
    span.end({ "ricochet.verdict": "retry_later" }, true);
    ctx.deps.metrics.count(MetricName.MESSAGE_FAILED);
    ctx.deps.log.error("message left on the queue after a failure", {
      messageId: message.messageId,
      error: errorWithName(error),
    });
    return { kind: "retry_later", reason: "failure" };
  }
};

/**
 * Works through a batch, at most `messageConcurrency` messages at once, each started only if
 * the invocation has time left to finish it.
 */
const processBatch = async (
  ctx: OrchestratorContext,
  messages: readonly ReceivedMessage[],
  remainingMs: () => number,
): Promise<string[]> => {
  const batch = openBatch(ctx, remainingMs);
  await mapWithConcurrency(messages, batch.ctx.deps.messageConcurrency, async (message) => {
    const started = await batch.start(message);
    if (started === undefined) return;
    try {
      const { parsed, callBudgetMs } = started;
      batch.settle(message, await processMessage(batch.ctx, message, parsed, callBudgetMs));
    } finally {
      batch.end();
    }
  });
  return [...batch.leftOnQueue];
};

export const createOrchestrator = (deps: OrchestratorDeps): Orchestrator => {
  const ctx = orchestratorContext(deps);
  return {
    processMessage: (message, remainingMs) =>
      processMessage(ctx, message, parseEnvelope(message.body), callBudgetOf(ctx, remainingMs())),
    processBatch: (messages, remainingMs) => processBatch(ctx, messages, remainingMs),
  };
};
