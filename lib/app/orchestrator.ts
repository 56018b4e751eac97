import { MAX_SQS_VISIBILITY_TIMEOUT_SECONDS } from "../contract/aws-limits.js";
import { MetricName } from "../contract/metric-names.js";
import { aheadVerdict } from "../core/ahead-message.js";
import { isInvalidPlaceholder, sameEnvelope } from "../core/claim.js";
import { DEAD_LETTER_KIND, DEAD_LETTER_VERSION } from "../core/dead-letter.js";
import { effectiveDeadlineMs } from "../core/decide.js";
import {
  DEFAULT_TIMEOUT_MS,
  type Envelope,
  type EnvelopeParseResult,
  parseEnvelope,
} from "../core/envelope.js";
import { envelopeDigest, shortDigest } from "../core/envelope-digest.js";
import {
  errorWithName,
  formatProblems,
  type InputProblem,
  InvalidPolicyError,
} from "../core/errors.js";
import { DEFAULT_LAMBDA_TIMEOUT_MS } from "../core/lambda-target-policy.js";
import { type Log, type Metrics, metricTargetOf } from "../core/observability.js";
import { MAX_OUTCOME_MESSAGE_LENGTH, OutcomeClass, storedExcerpt } from "../core/outcome.js";
import { type RetryPolicy, resolvePolicy } from "../core/policy.js";
import {
  applyPolicyLimits,
  DEFAULT_POLICY_LIMITS,
  type PolicyLimits,
} from "../core/policy-limits.js";
import {
  MessageOrigin,
  type MessageSchedule,
  type ReceivedMessage,
  type TargetRouter,
} from "../core/ports.js";
import type { EventRecord } from "../core/record.js";
import { describeTarget } from "../core/redact.js";
import { hopDelaySeconds, scheduleProblems, scheduleVerdict } from "../core/schedule.js";
import { EventStatus } from "../core/status.js";
import {
  type TargetKeying,
  type TargetKeyResolution,
  targetKeying,
} from "../core/target-groups.js";
import { type AttemptDeps, runClaimedAttempt } from "./attempt.js";
import { mapWithConcurrency } from "./concurrency.js";
import type { TargetAdmission, TargetBreakers } from "./target-breakers.js";
import { type CallPermit, NO_PERMIT, type TargetLimiter } from "./target-limits.js";

/** Everything the orchestrator needs, injected so Lambda, local runs and the simulation share it. */
export interface OrchestratorDeps extends AttemptDeps {
  readonly targets: TargetRouter;
  readonly defaultPolicy: RetryPolicy;
  /** Bounds an event's policy override is clamped to (default {@link DEFAULT_POLICY_LIMITS}). */
  readonly policyLimits?: PolicyLimits | undefined;
  readonly log: Log;
  readonly metrics: Metrics;
  /** Records of one batch attempted at once. */
  readonly messageConcurrency: number;
  /** Added to the target's timeout to make the lease, and kept free before the function's end. */
  readonly leaseMarginMs: number;
  /** The targets' circuit breakers; without them every event is attempted on its own. */
  readonly breakers?: TargetBreakers | undefined;
  /** The targets' concurrency and rate limits; without them no target is limited. */
  readonly limits?: TargetLimiter | undefined;
  /** Target keys whose outcomes are also counted under their own `target` dimension value. */
  readonly metricTargets?: ReadonlySet<string> | undefined;
  /** The declared target groups' lookup; without it every target is its own key. */
  readonly targetKeyOf?: TargetKeying | undefined;
}

/** What to do with one message once the orchestrator is done with it. */
export type MessageVerdict =
  /** Delete it: its effect is durable (recorded, re-enqueued or dead-lettered) or it is a duplicate. */
  | { readonly kind: "ack" }
  /** Leave it: it comes back after its visibility timeout (already adjusted where that matters). */
  | { readonly kind: "retry_later"; readonly reason: string };

const ACK: MessageVerdict = { kind: "ack" };
const CALL: TargetAdmission = { verdict: "call" };

const MAX_REPORTED_PROBLEMS = 20;
/** A producer's message always starts an event: generation 0, due now. */
const PRODUCER_SCHEDULE: MessageSchedule = { generation: 0 };

/** The shortest call the orchestrator will start; less than this is not worth an attempt. */
const MIN_CALL_MS = 1_000;

/** The message's schedule, if it may be believed: only Ricochet's own queue carries one. */
const scheduleOf = (message: ReceivedMessage): MessageSchedule =>
  message.origin === MessageOrigin.RICOCHET ? message.schedule : PRODUCER_SCHEDULE;

const timeoutOf = (envelope: Envelope): number =>
  envelope.target.type === "http"
    ? (envelope.target.timeoutMs ?? DEFAULT_TIMEOUT_MS)
    : DEFAULT_LAMBDA_TIMEOUT_MS;

/** What came of claiming and attempting one message, for the verdict and the breaker. */
interface AttemptTaken {
  readonly verdict: MessageVerdict;
  readonly called: boolean;
  readonly outcomeClass?: OutcomeClass | undefined;
  /** The outcome's message (redacted), the target's last error when the call failed. */
  readonly outcomeMessage?: string | undefined;
}

/** The orchestrator: turns ingress messages into attempts. One instance per process. */
export interface Orchestrator {
  /** Handles one message. Never throws: every failure becomes `retry_later`. */
  processMessage(message: ReceivedMessage, remainingMs: () => number): Promise<MessageVerdict>;
  /**
   * Handles a batch, returning the ids of the messages that must stay on the queue (SQS partial
   * batch response). Records the function cannot finish before its deadline are not started.
   */
  processBatch(messages: readonly ReceivedMessage[], remainingMs: () => number): Promise<string[]>;
}

export const createOrchestrator = (deps: OrchestratorDeps): Orchestrator => {
  const { log, metrics } = deps;
  const metricTargets = deps.metricTargets ?? new Set<string>();
  const keyOf = deps.targetKeyOf ?? targetKeying(undefined);

  /**
   * Counts an event's outcome, and again under its target's dimension value when the deployment
   * names targets for metrics (none named: no per-target metric at all).
   */
  const countOutcome = (name: MetricName, envelope: Envelope): void => {
    metrics.count(name);
    if (metricTargets.size === 0) return;
    metrics.countForTarget(name, metricTargetOf(keyOf(envelope.target).key, metricTargets));
  };

  const deadLetterInvalid = async (
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
    metrics.count(MetricName.INVALID_ENVELOPE);
    metrics.count(MetricName.DEAD_LETTERED);
    log.warn("invalid envelope dead-lettered", {
      messageId: message.messageId,
      eventId,
      problems: summary,
    });
    return ACK;
  };

  /**
   * Re-sends the message on the internal queue at its own generation, due at `notBeforeMs`, with
   * a delay of at most `hopSeconds`: a later one is reached by hopping again on arrival.
   */
  const resendFor = async (
    message: ReceivedMessage,
    notBeforeMs: number,
    delaySeconds = hopDelaySeconds(notBeforeMs, deps.clock(), deps.hopSeconds),
  ): Promise<void> => {
    await deps.ingress.send(message.body, { ...scheduleOf(message), notBeforeMs }, delaySeconds);
  };

  /**
   * A message for a cancelled event is deleted on arrival, never attempted (the cancel's audit
   * entry on the record says who and why).
   */
  const dropCancelled = (message: ReceivedMessage, record: EventRecord): MessageVerdict => {
    metrics.count(MetricName.CANCELLED_DROPPED);
    log.info("message for a cancelled event dropped", {
      eventId: record.eventId,
      messageId: message.messageId,
      generation: scheduleOf(message).generation,
    });
    return ACK;
  };

  /**
   * A long delay is reached by re-sending the same message in hops of at most `hopSeconds`. A
   * hop reads the record first (one read per hop, never on a call's path), so that a cancelled
   * event's chain of hops (a scheduled event's, or a long retry's) ends at the next one instead
   * of when it falls due.
   */
  const hop = async (
    message: ReceivedMessage,
    envelope: Envelope,
    wait: { readonly dueMs: number; readonly delaySeconds: number },
  ): Promise<MessageVerdict> => {
    const record = await deps.store.get(envelope.eventId);
    if (record?.status === EventStatus.CANCELLED) {
      // A conflicting resubmission deferred on its way (a breaker, a limit) is counted, as its
      // claim would have; only the event's own envelope is dropped as the cancel's.
      const digest = envelopeDigest(envelope);
      return sameEnvelope(record, digest)
        ? dropCancelled(message, record)
        : refuseConflict(envelope, digest, record, message);
    }
    await resendFor(message, wait.dueMs, wait.delaySeconds);
    metrics.count(MetricName.HOP);
    return ACK;
  };

  /**
   * The producer's message of an event whose `notBefore` is ahead: no call, no attempt. The first
   * hop is sent, then the event is recorded as `scheduled` (send before record: a crash between
   * the two leaves the producer's message to come back, never a record without a message). A
   * record that exists already means the event has its hops (or has moved on): this message is a
   * duplicate, or a conflicting resubmission.
   */
  const scheduleFirst = async (
    message: ReceivedMessage,
    envelope: Envelope,
    policy: RetryPolicy,
    policyAdjustments: readonly string[],
    wait: { readonly dueMs: number; readonly delaySeconds: number },
  ): Promise<MessageVerdict> => {
    const { dueMs } = wait;
    const problems = scheduleProblems(envelope.notBefore, policy.deadlineSeconds, deps.clock());
    if (problems.length > 0) return deadLetterInvalid(message, problems, envelope.eventId);
    const digest = envelopeDigest(envelope);
    const record = await deps.store.get(envelope.eventId);
    if (record !== undefined && !isInvalidPlaceholder(record)) {
      if (!sameEnvelope(record, digest)) return refuseConflict(envelope, digest, record, message);
      metrics.count(MetricName.DUPLICATE_SUPPRESSED);
      log.info("duplicate of a scheduled event acknowledged", {
        eventId: envelope.eventId,
        status: record.status,
      });
      return ACK;
    }
    await resendFor(message, dueMs, wait.delaySeconds);
    // An invalid envelope's placeholder is left in place (the write is refused): the hops carry
    // the corrected event, and its first claim replaces the placeholder as usual.
    await deps.store.recordScheduled({
      eventId: envelope.eventId,
      envelopeDigest: digest,
      dueMs,
      nowMs: deps.clock(),
      attemptBudget: policy.maxAttempts,
      targetSummary: describeTarget(envelope.target),
      targetGroup: keyOf(envelope.target).group,
      policyAdjustments,
    });
    metrics.count(MetricName.HOP);
    log.info("event scheduled", { eventId: envelope.eventId, due: new Date(dueMs).toISOString() });
    return ACK;
  };

  /**
   * The event's deadline as the claim will judge it. `policy.deadlineSeconds` counts from the
   * event's first claim (the record's `createdAt`), so the record is read: one read per
   * deferral, never on the path of a call. Before the first claim there is no record, and the
   * claim that creates it will stamp a time no earlier than now, so now stands in for it: the
   * deadline given is never later than the claim's. It must not be earlier either: an event this
   * judges past its deadline goes on to the claim without a slot of its target's concurrency
   * limit, trusting the claim to dead-letter it without a call (the message's send time, used
   * here before, let first attempts through to the target over the limit).
   */
  const deadlineOf = async (
    envelope: Envelope,
    policy: RetryPolicy,
  ): Promise<number | undefined> => {
    const record =
      policy.deadlineSeconds === undefined ? undefined : await deps.store.get(envelope.eventId);
    const firstSeenMs = record === undefined ? deps.clock() : Date.parse(record.createdAt);
    return effectiveDeadlineMs(envelope.deadline, policy, firstSeenMs);
  };

  /**
   * The target's breaker is open, or the target is at a limit: the event goes back to the
   * internal queue at its own generation, due when a call may be let through, like a hop. No
   * claim is made, so no attempt is spent and the record is not touched. The deadline wins: a
   * deferral never takes the event past it, and past it the event is not deferred at all
   * (undefined is returned) so that the claim dead-letters it.
   */
  const defer = async (
    message: ReceivedMessage,
    envelope: Envelope,
    policy: RetryPolicy,
    deferral: {
      readonly key: string;
      readonly untilMs: number;
      readonly because: string;
      /** When the target's outage began, if a breaker defers it: the "open too long" alarm's age. */
      readonly outageStartMs?: number | undefined;
    },
  ): Promise<MessageVerdict | undefined> => {
    const deadlineMs = await deadlineOf(envelope, policy);
    // Judged as the claim judges it (`claimedAtMs > deadlineMs`): past it here is past it there.
    if (deadlineMs !== undefined && deps.clock() > deadlineMs) return undefined;
    const { untilMs, outageStartMs } = deferral;
    const dueMs = deadlineMs === undefined ? untilMs : Math.min(untilMs, deadlineMs);
    await resendFor(message, dueMs);
    countOutcome(MetricName.DEFERRED, envelope);
    if (outageStartMs !== undefined)
      metrics.timing(MetricName.BREAKER_OPEN_AGE, Math.max(0, deps.clock() - outageStartMs));
    log.info(`event deferred: ${deferral.because}`, {
      eventId: envelope.eventId,
      target: deferral.key,
      until: new Date(dueMs).toISOString(),
    });
    return ACK;
  };

  /**
   * Asks the target's limits for a call its breaker let through. Over a limit the event is
   * deferred, and a probe it held is given back so that another may; past its deadline it is not
   * deferred and goes on, holding no slot, to the claim, which dead-letters it.
   */
  const admitToLimits = async (
    limits: TargetLimiter,
    message: ReceivedMessage,
    envelope: Envelope,
    policy: RetryPolicy,
    key: string,
    admission: TargetAdmission,
    callBudgetMs: number,
  ): Promise<{ readonly deferred: MessageVerdict } | { readonly permit: CallPermit }> => {
    // The slot is taken before the claim, so its lease outlives the claim's by a margin.
    const leaseMs = Math.min(timeoutOf(envelope), callBudgetMs) + 2 * deps.leaseMarginMs;
    const limit = await limits.admit(key, leaseMs);
    if (limit.verdict === "call") return { permit: limit.permit };
    const giveBackProbe = async () => {
      if (admission.verdict === "probe") await deps.breakers?.abandonProbe(key);
    };
    const because = `its target is at its ${limit.limit} limit`;
    const deferred = await defer(message, envelope, policy, { key, because, ...limit }).catch(
      async (error: unknown) => {
        await giveBackProbe();
        throw error;
      },
    );
    if (deferred === undefined) return { permit: NO_PERMIT };
    await giveBackProbe();
    return { deferred };
  };

  /** A different envelope under a known id: the first one wins; this one is counted and dropped. */
  const refuseConflict = async (
    envelope: Envelope,
    digest: string,
    record: EventRecord,
    message: ReceivedMessage,
  ): Promise<MessageVerdict> => {
    metrics.count(MetricName.CONFLICTING_RESUBMISSION);
    log.warn("conflicting resubmission dropped: the event's first envelope wins", {
      eventId: envelope.eventId,
      messageId: message.messageId,
      acceptedDigest: shortDigest(record.envelopeDigest ?? ""),
      droppedDigest: shortDigest(digest),
      status: record.status,
    });
    await deps.store.recordConflict({ eventId: envelope.eventId, digest, nowMs: deps.clock() });
    return ACK;
  };

  const waitAhead = async (
    message: ReceivedMessage,
    record: EventRecord,
  ): Promise<MessageVerdict> => {
    const verdict = aheadVerdict(
      record,
      scheduleOf(message).generation,
      message.receiveCount,
      deps.clock(),
    );
    if (verdict.kind === "drop") {
      metrics.count(MetricName.ORPHAN_DROPPED);
      log.warn("dropped a copy its issuer never recorded", {
        eventId: record.eventId,
        messageId: message.messageId,
        reason: verdict.reason,
      });
      return ACK;
    }
    await deps.ingress.changeVisibility(
      message,
      Math.min(verdict.seconds, MAX_SQS_VISIBILITY_TIMEOUT_SECONDS),
    );
    return { kind: "retry_later", reason: "message ahead of its record" };
  };

  const handle = async (
    message: ReceivedMessage,
    parsed: EnvelopeParseResult,
    callBudgetMs: number,
  ): Promise<MessageVerdict> => {
    if (!parsed.ok) return deadLetterInvalid(message, parsed.problems, parsed.eventId);
    const { envelope } = parsed;
    if (message.origin === MessageOrigin.PRODUCER && message.reservedAttributes.length > 0) {
      metrics.count(MetricName.FORGED_ATTRIBUTES);
      return deadLetterInvalid(
        message,
        message.reservedAttributes.map((name) => ({
          path: `messageAttributes.${name}`,
          message: "is reserved for Ricochet's own messages; a producer may not set it",
        })),
        envelope.eventId,
      );
    }
    const schedule = scheduleOf(message);

    let policy: RetryPolicy;
    try {
      policy = resolvePolicy(deps.defaultPolicy, envelope.policy);
    } catch (error) {
      if (!(error instanceof InvalidPolicyError)) throw error;
      const problems = error.problems.map((p) => ({ ...p, path: `policy.${p.path}` }));
      return deadLetterInvalid(message, problems, envelope.eventId);
    }
    const limited = applyPolicyLimits(policy, deps.policyLimits ?? DEFAULT_POLICY_LIMITS);
    if (limited.adjustments.length > 0) {
      policy = limited.policy;
      metrics.count(MetricName.POLICY_CLAMPED);
      log.warn("policy clamped to the deployment's limits", {
        eventId: envelope.eventId,
        adjustments: limited.adjustments,
      });
    }

    // SQS delays are whole seconds, so an early copy waits up to a second longer rather than run
    // early (lib/core/schedule.ts).
    const due = scheduleVerdict({
      notBefore: envelope.notBefore,
      messageDueMs: schedule.notBeforeMs,
      fromProducer: message.origin === MessageOrigin.PRODUCER,
      nowMs: deps.clock(),
      hopSeconds: deps.hopSeconds,
    });
    if (due.kind === "wait") {
      return due.firstSight
        ? scheduleFirst(message, envelope, policy, limited.adjustments, due)
        : hop(message, envelope, due);
    }

    const target = keyOf(envelope.target);
    if (target.ignoredGroup !== undefined) {
      log.warn("target group ignored: it is not the group the deployment declares its target in", {
        eventId: envelope.eventId,
        group: target.ignoredGroup,
        targetKey: target.key,
      });
    }
    const { key } = target;
    const admission = deps.breakers === undefined ? CALL : await deps.breakers.admit(key);
    if (admission.verdict === "defer") {
      const because = "its target's circuit breaker is open";
      const deferred = await defer(message, envelope, policy, { key, because, ...admission });
      if (deferred !== undefined) return deferred;
    }
    // The breaker is asked first: an open one defers without the limits' writes.
    const limit =
      deps.limits === undefined || admission.verdict === "defer"
        ? { permit: NO_PERMIT }
        : await admitToLimits(deps.limits, message, envelope, policy, key, admission, callBudgetMs);
    if ("deferred" in limit) return limit.deferred;
    const { permit } = limit;
    let end: AttemptTaken;
    try {
      end = await attempt(message, envelope, target, policy, limited.adjustments, callBudgetMs);
    } catch (error) {
      // The message stays on the queue; its probe must not hold the breaker half-open meanwhile.
      if (admission.verdict === "probe") await deps.breakers?.abandonProbe(key);
      throw error;
    } finally {
      await permit.release();
    }
    if (deps.breakers !== undefined && admission.verdict !== "defer") {
      if (end.called) {
        const failed =
          end.outcomeClass === OutcomeClass.RETRYABLE ||
          end.outcomeClass === OutcomeClass.UNCERTAIN;
        await deps.breakers.recordCall(key, failed, admission.verdict, end.outcomeMessage);
      } else if (admission.verdict === "probe") {
        await deps.breakers.abandonProbe(key);
      }
    }
    return end.verdict;
  };

  const attempt = async (
    message: ReceivedMessage,
    envelope: Envelope,
    target: TargetKeyResolution,
    policy: RetryPolicy,
    policyAdjustments: readonly string[],
    callBudgetMs: number,
  ): Promise<AttemptTaken> => {
    const schedule = scheduleOf(message);
    const verdictOnly = (verdict: MessageVerdict): AttemptTaken => ({ verdict, called: false });
    const digest = envelopeDigest(envelope);
    const claim = await deps.store.claim({
      eventId: envelope.eventId,
      generation: schedule.generation,
      envelopeDigest: digest,
      worker: deps.workerId,
      nowMs: deps.clock(),
      leaseMs: Math.min(timeoutOf(envelope), callBudgetMs) + deps.leaseMarginMs,
      attemptBudget: policy.maxAttempts,
      targetSummary: describeTarget(envelope.target),
      targetGroup: target.group,
      policyAdjustments,
    });
    switch (claim.kind) {
      case "finished":
        if (claim.record.status === EventStatus.CANCELLED)
          return verdictOnly(dropCancelled(message, claim.record));
        metrics.count(MetricName.DUPLICATE_SUPPRESSED);
        log.info("duplicate of a finished event acknowledged", {
          eventId: envelope.eventId,
          status: claim.record.status,
        });
        return verdictOnly(ACK);
      case "stale":
        metrics.count(MetricName.STALE_DROPPED);
        return verdictOnly(ACK);
      case "conflict":
        return verdictOnly(await refuseConflict(envelope, digest, claim.record, message));
      case "lease_held": {
        metrics.count(MetricName.LEASE_CONFLICT);
        const seconds = Math.max(1, Math.ceil((claim.leaseExpiresAt - deps.clock()) / 1000));
        await deps.ingress.changeVisibility(
          message,
          Math.min(seconds, MAX_SQS_VISIBILITY_TIMEOUT_SECONDS),
        );
        return verdictOnly({ kind: "retry_later", reason: "lease held by another worker" });
      }
      case "ahead":
        return verdictOnly(await waitAhead(message, claim.record));
      case "claimed":
        break;
    }

    if (claim.takeover)
      log.warn("lease expired; taking the event over", { eventId: envelope.eventId });
    const end = await runClaimedAttempt(deps, {
      envelope,
      body: message.body,
      policy,
      record: claim.record,
      target: deps.targets.forTarget(envelope.target.type),
      targetKey: target.key,
      // The lease was timed before the claim's write; if that write was slow (SDK retries), the
      // call must still end a margin before the lease does, or another worker could take over.
      callTimeoutMs: Math.max(
        0,
        Math.min(
          timeoutOf(envelope),
          callBudgetMs,
          (claim.record.leaseExpiresAt ?? Number.POSITIVE_INFINITY) -
            deps.clock() -
            deps.leaseMarginMs,
        ),
      ),
    });
    if (end.kind === "lease_lost") {
      metrics.count(MetricName.LEASE_LOST);
      log.warn("lease lost before the result was recorded", { eventId: envelope.eventId });
      return verdictOnly({ kind: "retry_later", reason: "lease lost" });
    }
    metrics.timing(MetricName.ATTEMPT_LATENCY, end.latencyMs);
    const counted = {
      delivered: MetricName.DELIVERED,
      retry: MetricName.RETRY_SCHEDULED,
      rejected: MetricName.REJECTED,
      dead_letter: MetricName.DEAD_LETTERED,
    } as const;
    countOutcome(counted[end.decision.kind], envelope);
    log.info("attempt finished", {
      eventId: envelope.eventId,
      attempt: claim.record.attempts,
      outcome: end.outcome.class,
      statusCode: end.outcome.statusCode,
      errorCategory: end.outcome.errorCategory,
      decision: end.decision.kind,
      delaySeconds: end.decision.kind === "retry" ? end.decision.delaySeconds : undefined,
    });
    return {
      verdict: ACK,
      called: end.called,
      outcomeClass: end.outcome.class,
      outcomeMessage: end.outcome.message,
    };
  };

  const processMessage = async (
    message: ReceivedMessage,
    parsed: EnvelopeParseResult,
    callBudgetMs: number,
  ): Promise<MessageVerdict> => {
    try {
      return await handle(message, parsed, callBudgetMs);
    } catch (error) {
      metrics.count(MetricName.MESSAGE_FAILED);
      log.error("message left on the queue after a failure", {
        messageId: message.messageId,
        error: errorWithName(error),
      });
      return { kind: "retry_later", reason: "failure" };
    }
  };

  /**
   * The time a message needs before the function ends: its call, cut to what a whole invocation
   * can afford (`capacityMs`), plus the margin. Without the cut, a target slower than the function
   * timeout would be drained on every receive and never attempted.
   */
  const timeNeededMs = (parsed: EnvelopeParseResult, capacityMs: number): number => {
    return (parsed.ok ? Math.min(timeoutOf(parsed.envelope), capacityMs) : 0) + deps.leaseMarginMs;
  };

  const drain = async (message: ReceivedMessage): Promise<void> => {
    metrics.count(MetricName.DRAINED);
    try {
      // Visible again at once: draining must not delay the event, only hand it on.
      await deps.ingress.changeVisibility(message, 0);
    } catch (error) {
      log.warn("could not release a drained message; it returns after its visibility timeout", {
        messageId: message.messageId,
        error: String(error),
      });
    }
  };

  const processBatch = async (
    messages: readonly ReceivedMessage[],
    remainingMs: () => number,
  ): Promise<string[]> => {
    const failed: string[] = [];
    // What the invocation had at the start bounds every call in it (a fresh one: the timeout).
    // Two margins: one is kept after the call, the other absorbs the time the batch has used
    // before a record starts, so a long call that fits a fresh invocation is not drained.
    const capacityMs = Math.max(MIN_CALL_MS, remainingMs() - 2 * deps.leaseMarginMs);
    await mapWithConcurrency(messages, deps.messageConcurrency, async (message) => {
      // Parsed once: the drain check and the attempt both need it, and it is the costliest
      // pure step of a record (schema validation of up to 1 MiB).
      const parsed = parseEnvelope(message.body);
      if (remainingMs() < timeNeededMs(parsed, capacityMs)) {
        await drain(message);
        failed.push(message.messageId);
        return;
      }
      const callBudgetMs = Math.max(MIN_CALL_MS, remainingMs() - deps.leaseMarginMs);
      const verdict = await processMessage(message, parsed, callBudgetMs);
      if (verdict.kind === "retry_later") failed.push(message.messageId);
    });
    return failed;
  };

  return {
    processMessage: (message, remainingMs) =>
      processMessage(
        message,
        parseEnvelope(message.body),
        Math.max(MIN_CALL_MS, remainingMs() - deps.leaseMarginMs),
      ),
    processBatch,
  };
};
