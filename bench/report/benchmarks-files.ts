import { existsSync, readFileSync } from "node:fs";
import { noisyNeighbourMarkdown } from "../noisy-neighbour/noisy-table.js";
import { rateLimitedMarkdown } from "../rate-limited/rate-table.js";
import {
  parseBenchOutput,
  renderBenchmarks,
  withRecordedRateLimited,
} from "./benchmarks-document.js";

/** Where the template, the cited runs and the document live. */
export const BENCHMARKS_FILES = {
  template: "bench/report/BENCHMARKS.template.md",
  run: "bench/results/latest.json",
  /** `npm run bench -- --scenario rate-limited --json`: used when the run has no such table. */
  rateLimitedRun: "bench/results/rate-limited.json",
  document: "BENCHMARKS.md",
} as const;

/**
 * BENCHMARKS.md as the template and the recorded runs give it: what `npm run bench:report`
 * writes and what the document test compares with.
 */
export const benchmarksFromFiles = (runPath: string = BENCHMARKS_FILES.run): string =>
  renderBenchmarks(
    readFileSync(BENCHMARKS_FILES.template, "utf8"),
    withRecordedRateLimited(
      parseBenchOutput(readFileSync(runPath, "utf8")),
      existsSync(BENCHMARKS_FILES.rateLimitedRun)
        ? parseBenchOutput(readFileSync(BENCHMARKS_FILES.rateLimitedRun, "utf8"))
        : undefined,
    ),
    noisyNeighbourMarkdown,
    rateLimitedMarkdown,
  );
