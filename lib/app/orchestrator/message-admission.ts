import { MetricName } from "../../contract/metric-names.js";
import { DEAD_LETTER_KIND, DEAD_LETTER_VERSION } from "../../core/dead-letter.js";
import type { Envelope, EnvelopeParseResult } from "../../core/envelope.js";
import { formatProblems, type InputProblem, InvalidPolicyError } from "../../core/errors.js";
import { MAX_OUTCOME_MESSAGE_LENGTH, storedExcerpt } from "../../core/outcome.js";
import { type RetryPolicy, resolvePolicy } from "../../core/policy.js";
import { applyPolicyLimits, DEFAULT_POLICY_LIMITS } from "../../core/policy-limits.js";
import { MessageOrigin, type ReceivedMessage } from "../../core/ports.js";
import { traceHeaders } from "../../core/trace-context.js";
import {
  ACK,
  type MessageVerdict,
  type OrchestratorContext,
  scheduleOf,
} from "./orchestrator-context.js";

/*
 * The first step of every message: is it an event Ricochet may act on, and under which policy?
 * What is not is dead-lettered as invalid, never attempted and never lost.
 */

const MAX_REPORTED_PROBLEMS = 20;

/** An event the orchestrator may act on, under its policy as clamped to the deployment's limits. */
export interface AdmittedEvent {
  readonly envelope: Envelope;
  readonly policy: RetryPolicy;
  /** How the event's policy was clamped (empty when it was within the limits). */
  readonly policyAdjustments: readonly string[];
}

/** Whether a message is an event the orchestrator may act on. */
export type Admission =
  | { readonly kind: "admitted"; readonly event: AdmittedEvent }
  /** Dead-letter it ({@link deadLetterInvalid}); `eventId` when the envelope names one. */
  | {
      readonly kind: "invalid";
      readonly problems: readonly InputProblem[];
      readonly eventId: string | undefined;
    };

/** Dead-letters a message that is no valid event, and records it under its id if it has one. */
export const deadLetterInvalid = async (
  { deps }: OrchestratorContext,
  message: ReceivedMessage,
  problems: readonly InputProblem[],
  eventId: string | undefined,
): Promise<MessageVerdict> => {
  // A JSON parse error quotes the start of the body, which may hold a credential.
  const summary = storedExcerpt(formatProblems(problems), {
    maxLength: MAX_OUTCOME_MESSAGE_LENGTH,
  });
  await deps.deadLetters.send({
    kind: DEAD_LETTER_KIND,
    version: DEAD_LETTER_VERSION,
    reason: "invalid_envelope",
    eventId,
    body: message.body,
    problems: problems.slice(0, MAX_REPORTED_PROBLEMS),
    attempts: 0,
    generation: scheduleOf(message).generation,
    deadLetteredAt: new Date(deps.clock()).toISOString(),
    ...traceHeaders(message.trace),
  });
  if (eventId !== undefined) {
    await deps.store.recordInvalid({
      eventId,
      worker: deps.workerId,
      message: summary,
      nowMs: deps.clock(),
      retentionSeconds: deps.retentionSeconds,
    });
  }
  deps.metrics.count(MetricName.INVALID_ENVELOPE);
  deps.metrics.count(MetricName.DEAD_LETTERED);
  deps.log.warn("invalid envelope dead-lettered", {
    messageId: message.messageId,
    eventId,
    problems: summary,
  });
  return ACK;
};

/**
 * The message's event and policy, or why it is no event Ricochet may act on: an envelope that
 * fails validation, a producer's message forging Ricochet's reserved attributes, or a policy
 * override that fails validation. A valid override beyond the deployment's limits is clamped, and
 * said so.
 */
export const admitMessage = (
  { deps }: OrchestratorContext,
  message: ReceivedMessage,
  parsed: EnvelopeParseResult,
): Admission => {
  if (!parsed.ok) return { kind: "invalid", problems: parsed.problems, eventId: parsed.eventId };
  const { envelope } = parsed;
  const { eventId } = envelope;
  if (message.origin === MessageOrigin.PRODUCER && message.reservedAttributes.length > 0) {
    deps.metrics.count(MetricName.FORGED_ATTRIBUTES);
    const problems = message.reservedAttributes.map((name) => ({
      path: `messageAttributes.${name}`,
      message: "is reserved for Ricochet's own messages; a producer may not set it",
    }));
    return { kind: "invalid", problems, eventId };
  }
  let policy: RetryPolicy;
  try {
    policy = resolvePolicy(deps.defaultPolicy, envelope.policy);
  } catch (error) {
    if (!(error instanceof InvalidPolicyError)) throw error;
    const problems = error.problems.map((p) => ({ ...p, path: `policy.${p.path}` }));
    return { kind: "invalid", problems, eventId };
  }
  const limited = applyPolicyLimits(policy, deps.policyLimits ?? DEFAULT_POLICY_LIMITS);
  if (limited.adjustments.length === 0) {
    return { kind: "admitted", event: { envelope, policy, policyAdjustments: [] } };
  }
  deps.metrics.count(MetricName.POLICY_CLAMPED);
  deps.log.warn("policy clamped to the deployment's limits", {
    eventId,
    adjustments: limited.adjustments,
  });
  const event = { envelope, policy: limited.policy, policyAdjustments: limited.adjustments };
  return { kind: "admitted", event };
};
