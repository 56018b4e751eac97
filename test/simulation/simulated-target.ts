import { DEFAULT_TIMEOUT_MS, type Envelope } from "../../lib/core/envelope.js";
import { DEFAULT_LAMBDA_TIMEOUT_MS } from "../../lib/core/lambda-target-policy.js";
import type { AttemptResult } from "../../lib/core/outcome.js";
import { ErrorCategory } from "../../lib/core/policy.js";
import type { DeliveryRequest, DeliveryTarget } from "../../lib/core/ports.js";
import { type RandomSource, randomInt } from "../../lib/core/random.js";
import { type AdversaryMark, markOf } from "../support/adversarial-producer.js";
import { payloadFingerprint } from "../support/guarantee-checks.js";
import { hostileText } from "../support/hostile-text.js";

/** What the simulated receiver does with one call. */
export const Behaviour = {
  SUCCESS: "success",
  SERVER_ERROR: "server_error",
  TOO_MANY_REQUESTS: "too_many_requests",
  BAD_REQUEST: "bad_request",
  /** The receiver acts, then the caller times out: requestSent true, outcome uncertain. */
  TIMEOUT_AFTER_ACTING: "timeout_after_acting",
  CONNECTION_REFUSED: "connection_refused",
  /** The call outlives the caller's lease: the worker froze, its timeout did not fire in time. */
  STALL: "stall",
  /**
   * A healthy receiver that takes {@link SLOW_SERVICE_MS} to answer: a caller that gives it less
   * times out after sending, through no fault of the receiver.
   */
  SLOW: "slow",
} as const;
export type Behaviour = (typeof Behaviour)[keyof typeof Behaviour];

/** Relative weights of the behaviours (an unlisted one weighs 0); a scenario draws them per event. */
export type BehaviourWeights = Readonly<Partial<Record<Behaviour, number>>>;

/** How long the slow receiver takes to answer. */
const SLOW_SERVICE_MS = 300;

/** One call as the receiver saw it, with true virtual times. */
export interface TargetCall {
  readonly eventId: string;
  /** The header the HTTP adapter sends: the event id the envelope carries. */
  readonly idempotencyKey: string;
  /** The id the event was submitted with (stamped in its payload by the scenario). */
  readonly origin: string | undefined;
  /** {@link payloadFingerprint} of the payload: which envelope the target was called with. */
  readonly fingerprint: string;
  /** The hostile mark the payload carried, if it was a forged or conflicting one. */
  readonly mark: AdversaryMark | undefined;
  readonly attempt: number;
  /** The `Ricochet-Replay` number the call carried (undefined: the event was never replayed). */
  readonly replay: number | undefined;
  readonly worker: string;
  readonly invocation: number;
  readonly startMs: number;
  /** The caller's clock when the call started (the clock deadlines are judged by). */
  readonly workerStartMs: number;
  endMs: number | undefined;
  readonly behaviour: Behaviour;
  /** Whether the receiver acted (a duplicate it must absorb by the Idempotency-Key). */
  acted: boolean;
  /** False only for a stall: the call ran past its own timeout. */
  readonly honouredTimeout: boolean;
}

/** Who is calling, so the receiver can record it. */
export interface Caller {
  readonly worker: string;
  readonly invocation: number;
  readonly clock: () => number;
  /** The lease the caller holds, so a stall can be made to outlive it. */
  readonly leaseMs: (envelope: Envelope) => number;
}

export interface SimulatedTargetOptions {
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: RandomSource;
  /** The behaviour weights of each event; events not listed always succeed. */
  readonly weightsFor: (eventId: string) => BehaviourWeights | undefined;
  /**
   * Where the bodies of its error answers come from: a stream of their own, so that drawing them
   * shifts no other draw. Each is a terminal escape (issue #31, finding 7); none without it.
   */
  readonly bodies?: RandomSource | undefined;
}

/** The call timeout an envelope asks for, as the orchestrator reads it. */
export const timeoutOf = (envelope: Envelope): number =>
  envelope.target.type === "http"
    ? (envelope.target.timeoutMs ?? DEFAULT_TIMEOUT_MS)
    : DEFAULT_LAMBDA_TIMEOUT_MS;

const originOf = (payload: unknown): string | undefined => {
  if (payload === null || typeof payload !== "object") return undefined;
  const origin = (payload as { origin?: unknown }).origin;
  return typeof origin === "string" ? origin : undefined;
};

const draw = (weights: BehaviourWeights, random: RandomSource): Behaviour => {
  const entries = Object.entries(weights) as [Behaviour, number][];
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  let x = random() * total;
  for (const [behaviour, weight] of entries) {
    if (x < weight) return behaviour;
    x -= weight;
  }
  return Behaviour.SUCCESS;
};

/**
 * A receiver with seeded behaviour. It records every call with its start and end in virtual
 * time, so the invariant checks can find overlapping attempts and missing Idempotency-Keys.
 */
export class SimulatedTarget {
  public readonly calls: TargetCall[] = [];

  public constructor(private readonly options: SimulatedTargetOptions) {}

  /** The delivery port one caller uses; every call is recorded under that caller. */
  public forCaller(caller: Caller): DeliveryTarget {
    return { deliver: (request) => this.deliver(caller, request) };
  }

  private async deliver(caller: Caller, request: DeliveryRequest): Promise<AttemptResult> {
    const { now, sleep, random } = this.options;
    const { envelope } = request;
    const weights = this.options.weightsFor(envelope.eventId);
    const behaviour = weights === undefined ? Behaviour.SUCCESS : draw(weights, random);
    // Like the real adapters, the call is cut to the caller's budget when that is shorter.
    const timeoutMs = Math.min(timeoutOf(envelope), request.timeoutMs ?? Number.POSITIVE_INFINITY);
    const call: TargetCall = {
      eventId: envelope.eventId,
      idempotencyKey: envelope.eventId,
      origin: originOf(envelope.payload),
      fingerprint: payloadFingerprint(envelope.payload),
      mark: markOf(envelope.payload),
      attempt: request.attempt,
      replay: request.replay,
      worker: caller.worker,
      invocation: caller.invocation,
      startMs: now(),
      workerStartMs: caller.clock(),
      endMs: undefined,
      behaviour,
      acted: false,
      honouredTimeout: behaviour !== Behaviour.STALL,
    };
    this.calls.push(call);
    const connectMs = randomInt(random, 1, 20);
    await sleep(connectMs);
    if (behaviour === Behaviour.CONNECTION_REFUSED) {
      call.endMs = now();
      return {
        kind: "error",
        category: ErrorCategory.CONNECTION_REFUSED,
        requestSent: false,
        message: "connect ECONNREFUSED",
        durationMs: connectMs,
      };
    }
    request.onSent?.();
    const serviceMs = randomInt(random, 5, Math.min(400, timeoutMs - connectMs - 1));
    const { bodies } = this.options;
    const result = (statusCode: number, retryAfter?: string): AttemptResult => {
      call.endMs = now();
      return {
        kind: "response",
        statusCode,
        retryAfter,
        bodyExcerpt: statusCode >= 400 && bodies !== undefined ? hostileText(bodies) : undefined,
        durationMs: (call.endMs ?? 0) - call.startMs,
      };
    };
    switch (behaviour) {
      case Behaviour.SUCCESS:
        await sleep(serviceMs);
        call.acted = true;
        return result(200);
      case Behaviour.SERVER_ERROR:
        await sleep(serviceMs);
        return result(503);
      case Behaviour.TOO_MANY_REQUESTS:
        await sleep(serviceMs);
        return result(429, String(randomInt(random, 1, 30)));
      case Behaviour.BAD_REQUEST:
        await sleep(serviceMs);
        return result(400);
      case Behaviour.TIMEOUT_AFTER_ACTING:
        await sleep(serviceMs);
        call.acted = true;
        await sleep(timeoutMs - connectMs - serviceMs);
        call.endMs = now();
        return {
          kind: "error",
          category: ErrorCategory.TIMEOUT,
          requestSent: true,
          message: `timed out after ${timeoutMs} ms`,
          durationMs: timeoutMs,
        };
      case Behaviour.SLOW: {
        const waitMs = timeoutMs - connectMs;
        if (waitMs >= SLOW_SERVICE_MS) {
          await sleep(SLOW_SERVICE_MS);
          call.acted = true;
          return result(200);
        }
        await sleep(Math.max(0, waitMs));
        call.endMs = now();
        return {
          kind: "error",
          category: ErrorCategory.TIMEOUT,
          requestSent: true,
          message: `no response within ${timeoutMs} ms after the request was sent`,
          durationMs: timeoutMs,
        };
      }
      case Behaviour.STALL: {
        // Long enough that the lease has certainly run out, whatever the clocks' skew.
        await sleep(caller.leaseMs(envelope) + randomInt(random, 1_000, 10_000));
        call.acted = true;
        return result(200);
      }
      default:
        return result(200);
    }
  }
}
