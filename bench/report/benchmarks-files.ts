import { existsSync, readFileSync } from "node:fs";
import { noisyNeighbourMarkdown } from "../noisy-neighbour/noisy-table.js";
import { rateLimitedMarkdown } from "../rate-limited/rate-table.js";
import { saturatingMarkdown } from "../saturating/saturating-table.js";
import {
  type BenchJson,
  parseBenchOutput,
  type RecordedScenario,
  renderBenchmarks,
  withRecorded,
} from "./benchmarks-document.js";

/** Where the template, the cited runs and the document live. */
export const BENCHMARKS_FILES = {
  template: "bench/report/BENCHMARKS.template.md",
  run: "bench/results/latest.json",
  /**
   * `npm run bench -- --scenario <flag> --json`, per scenario: used when the full run has no
   * such table.
   */
  recorded: {
    rateLimited: "bench/results/rate-limited.json",
    saturating: "bench/results/saturating.json",
  } satisfies Record<RecordedScenario, string>,
  document: "BENCHMARKS.md",
} as const;

const recordedRun = (path: string): BenchJson | undefined =>
  existsSync(path) ? parseBenchOutput(readFileSync(path, "utf8")) : undefined;

/**
 * BENCHMARKS.md as the template and the recorded runs give it: what `npm run bench:report`
 * writes and what the document test compares with.
 */
export const benchmarksFromFiles = (runPath: string = BENCHMARKS_FILES.run): string => {
  const { recorded } = BENCHMARKS_FILES;
  const full = parseBenchOutput(readFileSync(runPath, "utf8"));
  const withRate = withRecorded(full, "rateLimited", recordedRun(recorded.rateLimited));
  return renderBenchmarks(
    readFileSync(BENCHMARKS_FILES.template, "utf8"),
    withRecorded(withRate, "saturating", recordedRun(recorded.saturating)),
    {
      noisy: noisyNeighbourMarkdown,
      rateLimited: rateLimitedMarkdown,
      saturating: saturatingMarkdown,
    },
  );
};
