import { ConfigurationError } from "../../core/errors.js";
import type { EventSourcePollerOptions } from "../event-source-poller.js";

/** SQS's most messages in one receive or one delete batch. */
export const MAX_RECEIVE = 10;

/** The options with their defaults filled in, checked against Lambda's own limits. */
export const pollerSettings = (options: EventSourcePollerOptions) => {
  const settings = {
    batchSize: options.batchSize ?? 10,
    batchingWindowMs: options.batchingWindowMs ?? 0,
    maxConcurrency: options.maxConcurrency ?? 2,
    functionTimeoutMs: options.functionTimeoutMs ?? 30_000,
    waitTimeSeconds: options.waitTimeSeconds ?? 1,
    functionName: options.functionName ?? "ricochet-local",
  };
  const problems: string[] = [];
  const wholeIn = (name: keyof typeof settings, min: number, max: number) => {
    const value = settings[name];
    if (!Number.isInteger(value) || Number(value) < min || Number(value) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}`);
    }
  };
  wholeIn("batchSize", 1, 10_000);
  wholeIn("batchingWindowMs", 0, 300_000);
  wholeIn("maxConcurrency", 1, 1_000);
  wholeIn("functionTimeoutMs", 1, 900_000);
  wholeIn("waitTimeSeconds", 0, 20);
  if (settings.batchSize > MAX_RECEIVE && settings.batchingWindowMs === 0) {
    problems.push("a batchSize above 10 needs a batchingWindowMs, as Lambda requires");
  }
  if (problems.length > 0) {
    throw new ConfigurationError(`invalid event source poller options: ${problems.join("; ")}`);
  }
  return settings;
};

export type PollerSettings = ReturnType<typeof pollerSettings>;
