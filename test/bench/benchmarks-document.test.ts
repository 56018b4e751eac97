import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BENCH_OPTIONS } from "../../bench/bench-options.js";
import {
  BenchmarksTemplateError,
  markdownTable,
  parseBenchOutput,
  renderBenchmarks,
  scenarioAbsent,
  withRecorded,
} from "../../bench/report/benchmarks-document.js";
import { benchmarksFromFiles } from "../../bench/report/benchmarks-files.js";

const TEMPLATE = readFileSync("bench/report/BENCHMARKS.template.md", "utf8");
const noNoisy = { noisy: () => "(noisy)" };
const withTables = { ...noNoisy, rateLimited: () => "(rate)", saturating: () => "(saturating)" };

describe("renderBenchmarks", () => {
  it("fills values and tables from the run", () => {
    const text = renderBenchmarks(
      "commit {{value:run.commit}}, band {{value:noise.flakyBand.high}}\n{{table:prices}}",
      { run: { commit: "abc1234" }, noise: { flakyBand: { low: 0.9, high: 1.1 } } } as never,
      noNoisy,
    );
    expect(text).toMatch(/^commit abc1234, band 1\.1\n\| what \| list price/);
  });

  it.each([
    ["rateLimited", "rate-limited"],
    ["saturating", "saturating"],
  ] as const)("says the %s scenario was not in a run that has no such section", (key, flag) => {
    expect(renderBenchmarks(`{{table:${key}}}`, {}, withTables)).toBe(scenarioAbsent(key));
    expect(scenarioAbsent(key)).toContain(`npm run bench -- --scenario ${flag}`);
  });

  it.each([
    ["rateLimited", "(rate)"],
    ["saturating", "(saturating)"],
  ] as const)("renders the %s table when the run has it", (key, table) => {
    const run = { [key]: {} } as never;
    expect(renderBenchmarks(`{{table:${key}}}`, run, withTables)).toBe(table);
  });

  it("names every placeholder the run cannot fill instead of leaving a blank", () => {
    const render = () =>
      renderBenchmarks(
        "{{value:nope.none}} {{table:flaky}} {{table:unknown}} {{mystery}}",
        {},
        noNoisy,
      );
    expect(render).toThrow(BenchmarksTemplateError);
    expect(render).toThrow(
      /\{\{value:nope\.none\}\}.*\{\{table:flaky\}\}.*\{\{table:unknown\}\}.*\{\{mystery\}\}/,
    );
  });

  it("escapes a pipe inside a cell", () => {
    expect(markdownTable(["a"], [["x|y"]])).toBe("| a |\n| --- |\n| x\\|y |");
  });
});

describe("parseBenchOutput", () => {
  it("reads the last line of the bench's output, where --json prints its object", () => {
    expect(parseBenchOutput('[bench] progress\n{"events":3}\n')).toEqual({ events: 3 });
  });
});

describe("the benchmark template's commands", () => {
  const lines = TEMPLATE.split("\n").filter((line) => /^npm run bench( |$)/.test(line));
  it("are found", () => {
    expect(lines.length).toBeGreaterThan(5);
  });
  it.each(lines)("%s passes only options the bench takes", (line) => {
    const flags = [...line.replace(/#.*$/, "").matchAll(/--([a-z-]+)/g)].map((m) => m[1]);
    const known = new Set(Object.keys(BENCH_OPTIONS));
    expect(flags.filter((flag) => flag !== undefined && !known.has(flag))).toEqual([]);
  });
});

describe("BENCHMARKS.md", () => {
  it("is what its template and the cited run give: no figure in it is typed by hand", () => {
    expect(readFileSync("BENCHMARKS.md", "utf8")).toBe(benchmarksFromFiles());
  });
});

describe("withRecorded", () => {
  const full = { run: { commit: "full" } } as never;
  const scenario = {
    run: { commit: "scenario" },
    rateLimited: { from: "scenario" },
    saturating: { from: "scenario" },
  } as never;
  const fullWithIt = {
    run: { commit: "full" },
    rateLimited: { from: "full" },
    saturating: { from: "full" },
  } as never;

  it.each([
    ["the full run's own table, cited to it", fullWithIt, scenario, "full", "full"],
    ["the scenario run's table when the full run has none", full, scenario, "scenario", "scenario"],
    ["nothing when neither has one", full, undefined, undefined, undefined],
  ])("takes %s", (_case, main, recorded, from, commit) => {
    for (const key of ["rateLimited", "saturating"] as const) {
      const merged = withRecorded(main, key, recorded) as Record<
        string,
        { from?: string; commit?: string } | undefined
      >;
      expect(merged[key]?.from).toBe(from);
      expect(merged[`${key}Run`]?.commit).toBe(commit);
    }
  });
});
