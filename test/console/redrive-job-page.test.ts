import { describe, expect, it } from "vitest";
import type { RedriveProgress } from "../../lib/app/operator/redrive-deps.js";
import { redriveJobSection } from "../../lib/console/redrive-job-page.js";
import type { RedriveJob } from "../../lib/console/redrive-jobs.js";

const aJob = (overrides: Partial<RedriveJob> = {}): RedriveJob => ({
  id: "job-1",
  request: { by: "ana", dryRun: true },
  startedAtMs: 0,
  progress: undefined,
  report: undefined,
  error: undefined,
  finished: Promise.resolve(),
  ...overrides,
});

const shown = async (job: RedriveJob) => String(await redriveJobSection(job, "t0ken"));

describe("redrive job page", () => {
  it.each([
    [undefined, "Starting…"],
    [{ phase: "scan", done: 40 }, "Reading the dead-letter queue: 40 copies seen."],
    [{ phase: "move", done: 3, total: 12 }, "Moving: 3 of 12 handled."],
  ] as [RedriveProgress | undefined, string][])(
    "shows a running redrive's progress %j as %s and asks again",
    async (progress, line) => {
      const page = await shown(aJob({ progress }));
      expect(page).toContain(line);
      expect(page).toContain('data-state="running"');
      expect(page).toContain("Started 1970-01-01T00:00:00.000Z by <strong>ana</strong>.");
      expect(page).toContain('hx-get="/dead-letters/redrive/job?id=job-1&amp;part=status"');
    },
  );

  it("shows a finished dry run's report with its confirmation, and stops asking", async () => {
    const page = await shown(
      aJob({
        report: {
          dryRun: true,
          moved: [{ eventId: "e-1", generation: 1, attemptBudget: 5 }],
          skipped: [],
          failed: [],
        },
      }),
    );
    expect(page).toContain('data-state="done"');
    expect(page).toContain("Dry run: 1 would move");
    expect(page).toContain('id="confirm-form"');
    expect(page).not.toContain("hx-trigger");
  });

  it("shows a failed redrive's error, escaped, and stops asking", async () => {
    const page = await shown(aJob({ error: "<b>queue</b> unreachable" }));
    expect(page).toContain('data-state="failed"');
    expect(page).toContain("&lt;b&gt;queue&lt;/b&gt; unreachable");
    expect(page).not.toContain("hx-trigger");
  });
});
