/**
 * Writes BENCHMARKS.md from its template and one run's JSON:
 *
 *   npm run bench -- --json > bench/results/latest.json
 *   npm run bench:report                      # BENCHMARKS.md from bench/results/latest.json
 *                                             # (and rate-limited.json, if latest.json has none)
 *   npm run bench:report -- other-run.json    # from another run
 *   npm run bench:report -- --check           # exit 1 if BENCHMARKS.md is not what the run gives
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { BENCHMARKS_FILES, benchmarksFromFiles } from "../bench/report/benchmarks-files.js";

const { values, positionals } = parseArgs({
  options: { check: { type: "boolean", default: false } },
  allowPositionals: true,
});
const runPath = positionals[0] ?? BENCHMARKS_FILES.run;
const document = benchmarksFromFiles(runPath);
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
