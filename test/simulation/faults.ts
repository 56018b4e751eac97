import { QueueUnavailableError, StoreUnavailableError } from "../../lib/core/errors.js";
import type { RandomSource } from "../../lib/core/random.js";

/** The port operations a fault can hit. */
export type Operation =
  | "store.claim"
  | "store.recordResult"
  | "store.recordPendingDeadLetter"
  | "store.recordInvalid"
  | "store.recordScheduled"
  | "store.recordDeferral"
  | "store.recordRedrive"
  | "store.recordCancel"
  | "store.recordReplay"
  | "store.recordConflict"
  | "store.get"
  | "breakers.countFailure"
  | "breakers.replace"
  | "limits.takeSlot"
  | "limits.releaseSlot"
  | "limits.countCall"
  | "breakers.addDeferrals"
  | "ingress.send"
  | "ingress.changeVisibility"
  | "dlq.send"
  | "dlq.receive"
  | "dlq.delete"
  | "dlq.changeVisibility"
  | "target.deliver"
  | "batch.return";

/** A process that can crash: a Lambda invocation or a redrive run. */
export interface Process {
  readonly id: number;
  readonly worker: string;
  /** The process's clock: true virtual time plus its skew. */
  readonly clock: () => number;
  readonly crashed: boolean;
  /** Stops the process where it stands: nothing it awaits resolves any more. */
  crash(where: string): void;
}

/**
 * Runs `work` in the process `run` started (an operator's CLI run); undefined when the process
 * crashed or the call threw, as a person sees a run that died or failed as a whole.
 */
export const untilCrash = async <
  R extends { readonly process: Process & { readonly stopped: Promise<void> } },
  T,
>(
  run: R,
  work: (run: R) => Promise<T>,
): Promise<T | undefined> => {
  const result = await Promise.race([
    work(run).catch(() => undefined),
    run.process.stopped.then(() => undefined),
  ]);
  return run.process.crashed ? undefined : result;
};

/** A promise that never settles: how a crashed process stops mid-way. */
export const hang = <T>(): Promise<T> => new Promise<T>(() => {});

export interface FaultPlanOptions {
  readonly random: RandomSource;
  /** Base probability of each fault at each step; 0 runs without faults. */
  readonly rate: number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly latency: () => number;
}

/**
 * Seeded faults around every port call: latency on the way in and out (which is where other
 * workers get to interleave), a crash before or after the operation, a refusal before it is
 * applied (throttling, a failed send), and an error after it was applied (the answer was lost).
 */
export class FaultPlan {
  public constructor(private readonly options: FaultPlanOptions) {}

  private chance(p: number): boolean {
    return this.options.random() < p;
  }

  /** Whether the process crashes at this point (drawn once per point). */
  public crashes(process: Process, where: string): boolean {
    if (this.options.rate === 0 || !this.chance(this.options.rate / 2)) return false;
    process.crash(where);
    return true;
  }

  /** Runs one port call of `process` with latency and faults. */
  public async call<T>(process: Process, op: Operation, action: () => Promise<T>): Promise<T> {
    const { rate, sleep, latency } = this.options;
    await sleep(latency());
    if (process.crashed || this.crashes(process, `before ${op}`)) return hang();
    if (rate > 0 && op !== "dlq.receive" && this.chance(rate)) throw this.refusal(op, false);
    const result = await action();
    if (process.crashed || this.crashes(process, `after ${op}`)) return hang();
    // Applied, but the answer never came back: the caller must treat it as failed.
    if (rate > 0 && this.chance(rate / 4)) throw this.refusal(op, true);
    await sleep(latency());
    if (process.crashed) return hang();
    return result;
  }

  private refusal(op: Operation, applied: boolean): Error {
    const message = `${op} ${applied ? "applied, but the answer was lost" : "throttled"} (simulated)`;
    return op.startsWith("store.") || op.startsWith("breakers.") || op.startsWith("limits.")
      ? new StoreUnavailableError(message)
      : new QueueUnavailableError(message);
  }
}

/** Which keys a {@link FirstCallFault} strikes. */
export interface FirstCallFaultOptions {
  /** Share of keys whose first call fails. */
  readonly share: number;
  /** A random stream of the key's own, so the choice does not depend on interleaving. */
  readonly randomFor: (key: string) => RandomSource;
}

/**
 * A fault aimed at one moment rather than spread at random: for a seeded share of keys (event
 * ids), the first call made for the key fails, and no later one does. The caller decides which
 * call counts, e.g. the result write after a retry was sent, which a random fault rate reaches
 * too rarely to test the path it opens.
 */
export class FirstCallFault {
  private readonly seen = new Set<string>();
  /** Calls failed so far. */
  public trips = 0;

  public constructor(private readonly options: FirstCallFaultOptions) {}

  /** Whether this call, the first for `key` or a later one, is the one that fails. */
  public strikes(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if (this.options.randomFor(key)() >= this.options.share) return false;
    this.trips += 1;
    return true;
  }
}
