/**
 * Virtual time for the simulation. Every await that should take time (a port call, a target
 * call, a poll) sleeps on this scheduler; the run loop wakes one sleeper at a time, in order of
 * virtual time (ties by creation order), and lets the microtask queue settle before the next.
 * Nothing reads the real clock, so a seed replays byte for byte.
 */

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly resolve: () => void;
}

/** A sleep that can be cut short (a long poll woken by a new message). */
export interface WakeableSleep {
  readonly done: Promise<void>;
  /** Ends the sleep at the current virtual instant. Idempotent. */
  wake(): void;
  /** Drops the sleep without ever ending it (a timer nobody waits for any more). */
  cancel(): void;
}

/** What the run loop reports when it returns. */
export const RunEnd = {
  /** The stop condition became true. */
  STOPPED: "stopped",
  /** Nothing was left to wake: every process is blocked for good. */
  IDLE: "idle",
  /** The virtual time limit was reached first. */
  LIMIT: "limit",
} as const;
export type RunEnd = (typeof RunEnd)[keyof typeof RunEnd];

// setImmediate runs after the microtask queue is empty: every process resumed by a timer has
// run until it sleeps again (or finishes) by the time the next timer is taken.
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class VirtualScheduler {
  private nowMs: number;
  private readonly timers: Timer[] = [];
  private seq = 0;
  /** Timers fired so far: a cheap measure of a run's size. */
  public steps = 0;

  public constructor(startMs: number) {
    this.nowMs = startMs;
  }

  /** The true virtual time, in epoch ms. Workers see it through their own skewed clocks. */
  public now(): number {
    return this.nowMs;
  }

  private schedule(at: number, resolve: () => void): Timer {
    const timer: Timer = { at: Math.max(at, this.nowMs), seq: this.seq++, resolve };
    // Few timers are pending at once (a handful per worker), so a sorted insert is cheapest.
    let index = this.timers.length;
    while (index > 0 && this.isBefore(timer, this.timers[index - 1] as Timer)) index -= 1;
    this.timers.splice(index, 0, timer);
    return timer;
  }

  private isBefore(a: Timer, b: Timer): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  /** Resolves after `ms` of virtual time (0 still yields to every process due now). */
  public sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.schedule(this.nowMs + Math.max(0, ms), resolve);
    });
  }

  /** Like {@link sleep}, but `wake()` ends it early. */
  public wakeableSleep(ms: number): WakeableSleep {
    let timer: Timer | undefined;
    let settled = false;
    let resolveDone: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      resolveDone = resolve;
    });
    const finish = () => {
      if (settled) return;
      settled = true;
      resolveDone();
    };
    timer = this.schedule(this.nowMs + Math.max(0, ms), finish);
    const unschedule = (): boolean => {
      if (settled || timer === undefined) return false;
      const index = this.timers.indexOf(timer);
      if (index >= 0) this.timers.splice(index, 1);
      timer = undefined;
      return true;
    };
    return {
      done,
      wake: () => {
        if (unschedule()) this.schedule(this.nowMs, finish);
      },
      cancel: () => {
        unschedule();
      },
    };
  }

  /**
   * Wakes sleepers in virtual-time order until `stop()` holds, nothing is left to wake, or the
   * next wake-up lies beyond `limitMs`.
   */
  public async run(stop: () => boolean, limitMs: number): Promise<RunEnd> {
    await settle();
    while (!stop()) {
      const next = this.timers.shift();
      if (next === undefined) return RunEnd.IDLE;
      if (next.at > limitMs) {
        this.timers.unshift(next);
        return RunEnd.LIMIT;
      }
      this.nowMs = next.at;
      this.steps += 1;
      next.resolve();
      await settle();
    }
    return RunEnd.STOPPED;
  }

  /** Drops every pending sleeper: their promises never resolve and are collected. */
  public abandon(): void {
    this.timers.length = 0;
  }
}
