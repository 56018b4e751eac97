import { ConfigurationError } from "../core/errors.js";

/**
 * The concurrency of one Lambda function, shared by every event source mapping that invokes it.
 *
 * Deployed, a function fed by two queues has two mappings but one concurrency (its reserved
 * concurrency, or what the account lets it have): an invocation from either queue takes a slot
 * of the same budget. Polling is not an invocation, so a mapping waiting on an idle queue takes
 * no slot; a batch received while every slot is busy waits for one, its messages in flight,
 * as Lambda holds a throttled batch.
 */
export interface FunctionConcurrency {
  /** Invocations that may run at once. */
  readonly limit: number;
  /** Runs `invocation` once a slot is free, first come first served, and frees it after. */
  run<T>(invocation: () => Promise<T>): Promise<T>;
  /** Invocations running now. */
  readonly running: number;
  /** The most that ever ran at once. */
  readonly peak: number;
}

/** A concurrency budget of `limit` invocations (a whole number from 1 to 1 000). */
export const createFunctionConcurrency = (limit: number): FunctionConcurrency => {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1_000) {
    throw new ConfigurationError(
      `function concurrency must be a whole number from 1 to 1000, got ${limit}`,
    );
  }
  let running = 0;
  let peak = 0;
  const waiting: (() => void)[] = [];
  const acquire = async (): Promise<void> => {
    if (running < limit) {
      running += 1;
      peak = Math.max(peak, running);
      return;
    }
    // The slot is handed over by release(), so `running` never dips between two holders.
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next === undefined) running -= 1;
    else next();
  };
  return {
    limit,
    get running() {
      return running;
    },
    get peak() {
      return peak;
    },
    run: async (invocation) => {
      await acquire();
      try {
        return await invocation();
      } finally {
        release();
      }
    },
  };
};
