import { setTimeout as sleep } from "node:timers/promises";
import type { AwsClientMiddleware } from "../../lib/adapters/aws-clients.js";
import { type RandomSource, randomInt } from "../../lib/core/random.js";
import { pickWeighted } from "../support/random-streams.js";
import { resultWriteAfterSendOf } from "./result-write-fault.js";

/** The faults injected into AWS SDK calls. */
export const AwsFault = {
  /** A ThrottlingException / ProvisionedThroughputExceededException, before the call is sent. */
  THROTTLING: "throttling",
  /** A 5xx from the service, before the call is sent. */
  SERVER_ERROR: "serverError",
  /** The call hangs, then times out, without reaching the service. */
  TIMEOUT: "timeout",
  /** The service acts, then the response is lost: the caller sees a reset. */
  DROPPED_RESPONSE: "droppedResponse",
  /**
   * Aimed, not random: the result write after an event's first retry or its dead-letter copy was
   * sent fails on every SDK attempt, so the orchestrator sees it fail (once per chosen event).
   */
  RESULT_WRITE_AFTER_SEND: "resultWriteAfterSend",
} as const;
export type AwsFault = (typeof AwsFault)[keyof typeof AwsFault];

export const ALL_AWS_FAULTS: readonly AwsFault[] = Object.values(AwsFault);

export interface AwsFaultInjectorOptions {
  /** Probability that one HTTP attempt (SDK retries included) gets a fault. */
  readonly rate: number;
  readonly random: RandomSource;
  /** Told of every fault as it is injected. */
  readonly onFault: (fault: AwsFault, call: string) => void;
  /** Longest a timeout hangs before it fails; default 1500 ms. */
  readonly maxHangMs?: number;
  /**
   * Asked once per aimed result write (see result-write-fault.ts) with its event id: true
   * makes that write fail. Default: never.
   */
  readonly failsResultWrite?: (eventId: string) => boolean;
}

const FAULT_WEIGHTS = [
  [AwsFault.THROTTLING, 3],
  [AwsFault.SERVER_ERROR, 2],
  [AwsFault.TIMEOUT, 1],
  [AwsFault.DROPPED_RESPONSE, 2],
] as const;

/**
 * An error shaped like a deserialized service exception, which is what the SDK's retry strategy
 * inspects (`name`, `$fault`, `$metadata.httpStatusCode`) to decide whether to retry.
 */
const serviceError = (name: string, statusCode: number, fault: "client" | "server"): Error =>
  Object.assign(new Error(`${name} (injected by chaos)`), {
    name,
    $fault: fault,
    $metadata: { httpStatusCode: statusCode, attempts: 1, totalRetryDelay: 0 },
  });

/** A socket-level error the SDK treats as transient, like a real lost response. */
const networkError = (code: "ECONNRESET" | "ETIMEDOUT", message: string): Error =>
  Object.assign(new Error(`${message} (injected by chaos)`), { code });

const throttlingNameFor = (clientName: string | undefined, random: RandomSource): string =>
  clientName?.startsWith("DynamoDB") === true && random() < 0.5
    ? "ProvisionedThroughputExceededException"
    : "ThrottlingException";

/**
 * A finalizeRequest middleware that injects seeded faults into every SDK client's HTTP attempts.
 * It sits inside the SDK's retry loop, so the SDK retries these faults as it would real ones and
 * Ricochet sees only what survives the retries: the real path, end to end. The middleware is
 * resolved once per call (`send`) and run once per HTTP attempt, so an aimed fault decided on
 * the first attempt holds for the call's retries.
 */
export const createAwsFaultInjector = (options: AwsFaultInjectorOptions): AwsClientMiddleware => {
  const { random, rate } = options;
  const maxHangMs = options.maxHangMs ?? 1_500;
  /** Whether this call is the aimed result write (asked once per call, counted once). */
  const isAimed = (commandName: string | undefined, input: unknown): boolean => {
    const eventId = resultWriteAfterSendOf(commandName, input);
    const aimed = eventId !== undefined && options.failsResultWrite?.(eventId) === true;
    if (aimed) options.onFault(AwsFault.RESULT_WRITE_AFTER_SEND, `DynamoDB.${commandName}`);
    return aimed;
  };
  return {
    name: "chaosFaultInjector",
    middleware: (next, context) => {
      let aimed: boolean | undefined;
      return async (args) => {
        aimed ??= isAimed(context.commandName, args.input);
        if (aimed) throw serviceError("InternalServerError", 500, "server");
        if (random() >= rate) return next(args);
        const fault = pickWeighted(random, FAULT_WEIGHTS);
        options.onFault(fault, `${context.clientName}.${context.commandName}`);
        switch (fault) {
          case AwsFault.THROTTLING:
            throw serviceError(throttlingNameFor(context.clientName, random), 400, "client");
          case AwsFault.SERVER_ERROR:
            throw serviceError("InternalServerError", 500, "server");
          case AwsFault.TIMEOUT:
            await sleep(randomInt(random, 100, maxHangMs));
            throw networkError("ETIMEDOUT", "request timed out");
          case AwsFault.DROPPED_RESPONSE:
            await next(args);
            throw networkError("ECONNRESET", "socket hang up after the request was handled");
        }
      };
    },
  };
};
