/**
 * The execution environments of one Lambda function, each with its own module scope: what a
 * handler keeps in memory between invocations (an SDK client, a circuit breaker) lives in one
 * environment and is not seen by the others. An invocation runs in an idle environment, or in a
 * new one when none is idle, so there are never more environments than invocations ever ran at
 * once (the function's concurrency bounds them).
 *
 * Which idle environment Lambda picks is not documented; this takes the one freed last, which
 * concentrates the invocations on the fewest environments, so in-memory state learns the most
 * it can. For a contender whose breakers live in memory that is the assumption most in its favour.
 */
export interface SandboxPool<T> {
  /** Runs `work` in an idle environment (made with `init` when none is), which it holds until done. */
  use<R>(work: (sandbox: T) => Promise<R>): Promise<R>;
  /** Every environment made so far, idle or not. */
  all(): readonly T[];
}

export const createSandboxPool = <T>(init: () => T): SandboxPool<T> => {
  const made: T[] = [];
  const idle: T[] = [];
  const take = (): T => {
    const reused = idle.pop();
    if (reused !== undefined) return reused;
    const fresh = init();
    made.push(fresh);
    return fresh;
  };
  return {
    use: async (work) => {
      const sandbox = take();
      try {
        return await work(sandbox);
      } finally {
        idle.push(sandbox);
      }
    },
    all: () => [...made],
  };
};
