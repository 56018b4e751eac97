import type { RedriveReport } from "../app/operator/redrive.js";
import type { RedriveProgress } from "../app/operator/redrive-deps.js";
import type { RedriveRequestInput } from "../app/operator/redrive-request.js";
import { errorMessage } from "../core/errors.js";

/*
 * The console's redrives run beside the request that asked for them: a confirmed move of a few
 * thousand events at the redrive's rate takes minutes, which a page must not spend waiting on
 * one response with nothing to show. The page that started one follows it by its id.
 */

/** One redrive the console started, as its page shows it. */
export interface RedriveJob {
  readonly id: string;
  readonly request: RedriveRequestInput;
  readonly startedAtMs: number;
  /** The latest progress the redrive reported (scan, then move). */
  readonly progress: RedriveProgress | undefined;
  /** Set once the redrive has finished. */
  readonly report: RedriveReport | undefined;
  /** Set when the redrive failed as a whole (its request refused, a queue unreachable). */
  readonly error: string | undefined;
  /** Settles when the redrive has finished, failed or not. */
  readonly finished: Promise<void>;
}

type JobStart =
  | { readonly kind: "started"; readonly job: RedriveJob }
  | { readonly kind: "busy"; readonly running: RedriveJob };

/** Runs a redrive for a request, reporting progress as it goes. */
export type RunRedrive = (
  request: RedriveRequestInput,
  onProgress: (progress: RedriveProgress) => void,
) => Promise<RedriveReport>;

/** The console's redrives: at most one running, the last few kept for their pages. */
export interface RedriveJobs {
  /**
   * Starts a redrive, unless one is running (two would contend for the same copies): then the
   * running one is answered instead, for the page to point at.
   */
  start(request: RedriveRequestInput): JobStart;
  get(id: string): RedriveJob | undefined;
}

/** Redrives kept for their pages; the oldest finished ones are forgotten first. */
export const KEPT_REDRIVE_JOBS = 20;

export const createRedriveJobs = (options: {
  readonly run: RunRedrive;
  readonly clock: () => number;
  readonly newId: () => string;
}): RedriveJobs => {
  // In start order; each update replaces the job's entry, so the running one is known by its id.
  const jobs = new Map<string, RedriveJob>();
  let runningId: string | undefined;

  const forget = (): void => {
    for (const id of [...jobs.keys()].slice(0, Math.max(0, jobs.size - KEPT_REDRIVE_JOBS))) {
      if (id !== runningId) jobs.delete(id);
    }
  };

  return {
    start: (request) => {
      const running = runningId === undefined ? undefined : jobs.get(runningId);
      if (running !== undefined) return { kind: "busy", running };
      const id = options.newId();
      let settle: () => void = () => {};
      const finished = new Promise<void>((resolve) => {
        settle = resolve;
      });
      const job: RedriveJob = {
        id,
        request,
        startedAtMs: options.clock(),
        progress: undefined,
        report: undefined,
        error: undefined,
        finished,
      };
      jobs.set(id, job);
      runningId = id;
      forget();
      const update = (change: Partial<RedriveJob>): void => {
        const current = jobs.get(id);
        if (current !== undefined) jobs.set(id, { ...current, ...change });
      };
      options
        .run(request, (progress) => update({ progress }))
        .then(
          (report) => update({ report }),
          (error: unknown) => update({ error: errorMessage(error) }),
        )
        .finally(() => {
          runningId = undefined;
          settle();
        });
      return { kind: "started", job };
    },
    get: (id) => jobs.get(id),
  };
};
