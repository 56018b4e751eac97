import { setTimeout as sleep } from "node:timers/promises";

/**
 * Asks `probe` every `intervalMs` until it answers something other than `undefined`, and returns
 * that; `undefined` once `timeoutMs` has passed (the caller says what did not happen). Asks at
 * least once.
 */
export const pollUntil = async <T>(
  probe: () => T | undefined | Promise<T | undefined>,
  { timeoutMs, intervalMs }: { readonly timeoutMs: number; readonly intervalMs: number },
): Promise<T | undefined> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const answer = await probe();
    if (answer !== undefined) return answer;
    if (Date.now() >= until) return undefined;
    await sleep(intervalMs);
  }
};
