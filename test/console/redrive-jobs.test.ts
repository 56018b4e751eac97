import { describe, expect, it } from "vitest";
import type { RedriveReport } from "../../lib/app/operator/redrive.js";
import type { RedriveProgress } from "../../lib/app/operator/redrive-deps.js";
import type { RedriveRequestInput } from "../../lib/app/operator/redrive-request.js";
import {
  createRedriveJobs,
  KEPT_REDRIVE_JOBS,
  type RunRedrive,
} from "../../lib/console/redrive-jobs.js";

const request: RedriveRequestInput = { reasons: ["exhausted"], by: "ana", dryRun: false };
const report: RedriveReport = {
  dryRun: false,
  moved: [{ eventId: "e-1", generation: 1, attemptBudget: 5 }],
  skipped: [],
  failed: [],
};

/** A redrive the test finishes by hand, reporting the progress it is told to. */
const controlledRun = () => {
  const runs: {
    progress: (p: RedriveProgress) => void;
    finish: (r: RedriveReport) => void;
    fail: (e: Error) => void;
  }[] = [];
  const run: RunRedrive = (_request, onProgress) =>
    new Promise((resolve, reject) => {
      runs.push({ progress: onProgress, finish: resolve, fail: reject });
    });
  return { run, runs };
};

const jobsOver = (run: RunRedrive) => {
  let made = 0;
  const newId = () => {
    made += 1;
    return `job-${made}`;
  };
  return createRedriveJobs({ run, clock: () => 1_000, newId });
};

const started = (start: ReturnType<ReturnType<typeof jobsOver>["start"]>) => {
  if (start.kind !== "started") throw new Error(`expected a start, got ${start.kind}`);
  return start.job;
};

describe("console redrive jobs", () => {
  it("runs a redrive beside the request: its progress while it runs, then its report", async () => {
    const { run, runs } = controlledRun();
    const jobs = jobsOver(run);
    const job = started(jobs.start(request));
    expect(jobs.get(job.id)).toMatchObject({ progress: undefined, report: undefined });

    runs[0]?.progress({ phase: "move", done: 3, total: 10 });
    expect(jobs.get(job.id)?.progress).toEqual({ phase: "move", done: 3, total: 10 });

    runs[0]?.finish(report);
    await job.finished;
    expect(jobs.get(job.id)).toMatchObject({ report, error: undefined, startedAtMs: 1_000 });
  });

  it("answers the running redrive instead of starting a second, and starts again once it has finished", async () => {
    const { run, runs } = controlledRun();
    const jobs = jobsOver(run);
    const first = started(jobs.start(request));
    const second = jobs.start({ ...request, eventIds: ["e-2"] });
    expect(second).toMatchObject({ kind: "busy", running: { id: first.id } });
    expect(runs).toHaveLength(1);

    runs[0]?.finish(report);
    await first.finished;
    expect(jobs.start(request).kind).toBe("started");
    expect(runs).toHaveLength(2);
  });

  it("keeps a failed redrive's error and lets the next one start", async () => {
    const { run, runs } = controlledRun();
    const jobs = jobsOver(run);
    const job = started(jobs.start(request));
    runs[0]?.fail(new Error("queue unreachable"));
    await job.finished;
    expect(jobs.get(job.id)).toMatchObject({ error: "queue unreachable", report: undefined });
    expect(jobs.start(request).kind).toBe("started");
  });

  it(`keeps the last ${KEPT_REDRIVE_JOBS} redrives for their pages and forgets older ones`, async () => {
    const jobs = jobsOver(async () => report);
    const ids: string[] = [];
    for (let i = 0; i < KEPT_REDRIVE_JOBS + 5; i += 1) {
      const job = started(jobs.start(request));
      ids.push(job.id);
      await job.finished;
    }
    expect(ids.filter((id) => jobs.get(id) !== undefined)).toEqual(ids.slice(5));
  });
});
