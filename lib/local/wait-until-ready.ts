import { setTimeout as sleep } from "node:timers/promises";
import { EmulatorStartError } from "../core/errors.js";

export interface ReadinessCheck {
  /** Named in the error, e.g. "DynamoDB Local". */
  readonly name: string;
  /** A real SDK call that succeeds once the emulator serves requests. */
  readonly probe: (signal: AbortSignal) => Promise<unknown>;
  /** True once the process has exited: waiting longer is pointless. */
  readonly exited: () => boolean;
  /** The emulator's latest output, for the error message. */
  readonly output: () => string;
  readonly timeoutMs: number;
  readonly intervalMs?: number;
}

/**
 * Polls `probe` until it answers. Fails fast when the process exits, and after `timeoutMs`
 * otherwise, with the emulator's output tail in the message so the cause is visible.
 */
export const waitUntilReady = async (check: ReadinessCheck): Promise<void> => {
  const deadline = Date.now() + check.timeoutMs;
  let lastError: unknown;
  for (;;) {
    if (check.exited()) {
      throw failure(check, "exited before it was ready", lastError, true);
    }
    try {
      await check.probe(AbortSignal.timeout(Math.max(100, Math.min(2_000, deadline - Date.now()))));
      return;
    } catch (error) {
      lastError = error;
      // The emulator is up and refuses the call (bad credentials…): waiting will not help.
      if (isClientFault(error)) throw failure(check, "refused the readiness call", error, false);
    }
    if (Date.now() >= deadline) {
      throw failure(check, `did not answer within ${check.timeoutMs} ms`, lastError, false);
    }
    await sleep(check.intervalMs ?? 100);
  }
};

const isClientFault = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "$fault" in error && error.$fault === "client";

/** The error's `context.exited` tells an early exit (worth a retry on another port) from a hang. */
const failure = (
  check: ReadinessCheck,
  what: string,
  lastError: unknown,
  exited: boolean,
): EmulatorStartError => {
  const output = check.output();
  const reason = lastError instanceof Error ? `; last probe error: ${lastError.message}` : "";
  return new EmulatorStartError(
    `${check.name} ${what}${reason}${output === "" ? "" : `\n--- output tail ---\n${output}`}`,
    { cause: lastError, context: { emulator: check.name, exited } },
  );
};
