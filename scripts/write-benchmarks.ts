/**
 * Writes BENCHMARKS.md from its template and one run's JSON:
 *
 *   npm run bench -- --json > bench/results/latest.json
 *   npm run bench:report                      # BENCHMARKS.md from bench/results/latest.json
 *   npm run bench:report -- other-run.json    # from another run
 *   npm run bench:report -- --check           # exit 1 if BENCHMARKS.md is not what the run gives
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { noisyNeighbourMarkdown } from "../bench/noisy-neighbour/noisy-table.js";
import { rateLimitedMarkdown } from "../bench/rate-limited/rate-table.js";
import { parseBenchOutput, renderBenchmarks } from "../bench/report/benchmarks-document.js";

/** Where the template, the cited run and the document live. */
export const BENCHMARKS_FILES = {
  template: "bench/report/BENCHMARKS.template.md",
  run: "bench/results/latest.json",
  document: "BENCHMARKS.md",
} as const;

const { values, positionals } = parseArgs({
  options: { check: { type: "boolean", default: false } },
  allowPositionals: true,
});
const runPath = positionals[0] ?? BENCHMARKS_FILES.run;
const document = renderBenchmarks(
  readFileSync(BENCHMARKS_FILES.template, "utf8"),
  parseBenchOutput(readFileSync(runPath, "utf8")),
  noisyNeighbourMarkdown,
  rateLimitedMarkdown,
);
if (values.check) {
  const current = readFileSync(BENCHMARKS_FILES.document, "utf8");
  if (current !== document) {
    console.error(
      `${BENCHMARKS_FILES.document} is not what ${runPath} gives: run npm run bench:report`,
    );
    process.exit(1);
  }
  console.log(`${BENCHMARKS_FILES.document} matches ${runPath}`);
} else {
  writeFileSync(BENCHMARKS_FILES.document, document);
  console.log(`wrote ${BENCHMARKS_FILES.document} from ${runPath}`);
}
