import type { BenchResult, ContenderFigures } from "../harness.js";
import type { NoisyNeighbourResult } from "../noisy-neighbour/noisy-neighbour.js";
import type { RateLimitedResult } from "../rate-limited/rate-limited.js";
import type { SaturatingResult } from "../saturating/saturating.js";
import * as prices from "../support/list-prices.js";
import type { RunMetadata } from "../support/run-metadata.js";
import { figureRows } from "./figure-rows.js";

/** What `npm run bench -- --json` prints on its last line. */
export type BenchJson = Partial<BenchResult> & {
  readonly run?: RunMetadata;
  readonly noisyNeighbour?: NoisyNeighbourResult;
  readonly rateLimited?: RateLimitedResult;
  /** The run the rate-limited figures come from: this one, or a scenario run of its own. */
  readonly rateLimitedRun?: RunMetadata;
  readonly saturating?: SaturatingResult;
  /** The run the saturating figures come from: this one, or a scenario run of its own. */
  readonly saturatingRun?: RunMetadata;
};

/** The scenarios a run of their own may supply (each takes about 20 minutes). */
const RECORDED_SCENARIOS = {
  rateLimited: { flag: "rate-limited", runKey: "rateLimitedRun" },
  saturating: { flag: "saturating", runKey: "saturatingRun" },
} as const;
export type RecordedScenario = keyof typeof RECORDED_SCENARIOS;

/**
 * The full run, with `scenario` taken from a run of that scenario alone when the full run has
 * none (a full run need not repeat it). Either way its `…Run` entry says which run the table is
 * from.
 */
export const withRecorded = (
  full: BenchJson,
  scenario: RecordedScenario,
  recorded?: BenchJson,
): BenchJson => {
  const { runKey } = RECORDED_SCENARIOS[scenario];
  if (full[scenario] !== undefined) return { ...full, [runKey]: full.run };
  if (recorded?.[scenario] === undefined) return full;
  return { ...full, [scenario]: recorded[scenario], [runKey]: recorded.run };
};

/** How each scenario's figures become Markdown (bench/noisy-neighbour, rate-limited, saturating). */
export interface ScenarioMarkdown {
  readonly noisy: (result: NoisyNeighbourResult) => string;
  readonly rateLimited?: (result: RateLimitedResult) => string;
  readonly saturating?: (result: SaturatingResult) => string;
}

/**
 * What a recorded scenario's table says for a run recorded before the scenario existed (or
 * without it): the document stays true to its run instead of refusing to render.
 */
export const scenarioAbsent = (scenario: RecordedScenario): string => {
  const { flag } = RECORDED_SCENARIOS[scenario];
  return `*The ${flag} scenario was not in the recorded run; \`npm run bench -- --scenario ${flag}\` runs it.*`;
};

/** A `{{…}}` the template names that the run cannot fill. */
export class BenchmarksTemplateError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`BENCHMARKS template: ${problems.join("; ")}`);
    this.name = "BenchmarksTemplateError";
  }
}

const escapeCell = (text: string): string => text.replaceAll("|", "\\|");

/** A Markdown table: a header and rows of cells. */
export const markdownTable = (
  head: readonly string[],
  rows: readonly (readonly string[])[],
): string =>
  [head, head.map(() => "---"), ...rows]
    .map((cells) => `| ${cells.map(escapeCell).join(" | ")} |`)
    .join("\n");

const contendersTable = (figures: Readonly<Record<string, ContenderFigures>>, details: boolean) =>
  markdownTable(
    ["figure", ...Object.keys(figures)],
    figureRows(figures, details).map((row) => [row.label.trim(), ...row.cells]),
  );

const pricesTable = (): string =>
  markdownTable(
    ["what", "list price (us-east-1, on demand)"],
    [
      [
        "SQS request (per 64 KiB of payload)",
        `$${prices.SQS_USD_PER_MILLION_REQUESTS} per million`,
      ],
      [
        "DynamoDB write request unit",
        `$${prices.DYNAMODB_USD_PER_MILLION_WRITE_UNITS} per million`,
      ],
      ["DynamoDB read request unit", `$${prices.DYNAMODB_USD_PER_MILLION_READ_UNITS} per million`],
      [
        "DynamoDB storage",
        `$${prices.DYNAMODB_USD_PER_GB_MONTH} per GB-month (+${prices.DYNAMODB_ITEM_OVERHEAD_BYTES} B per item)`,
      ],
      ["point-in-time recovery", `$${prices.DYNAMODB_PITR_USD_PER_GB_MONTH} per GB-month of table`],
      ["Lambda request", `$${prices.LAMBDA_USD_PER_MILLION_REQUESTS} per million`],
      ["Lambda duration, arm64", `$${prices.LAMBDA_USD_PER_GB_SECOND.arm64} per GB-s`],
    ],
  );

/** The value at a dot path of the run's JSON, as text; undefined when there is none. */
const valueAt = (json: unknown, path: string): string | undefined => {
  let node: unknown = json;
  for (const key of path.split(".")) {
    if (node === null || typeof node !== "object" || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  if (node === null || node === undefined) return "–";
  return typeof node === "object" ? JSON.stringify(node) : String(node);
};

/**
 * BENCHMARKS.md from its template and one run's JSON. Every figure comes from the run:
 * `{{value:a.b.c}}` is a value of the JSON, `{{table:flaky}}`, `{{table:healthy}}`,
 * `{{table:noisy}}`, `{{table:rateLimited}}`, `{{table:saturating}}` and `{{table:prices}}` are whole tables. A placeholder the run cannot fill
 * is an error naming every one, never an empty cell.
 */
export const renderBenchmarks = (
  template: string,
  json: BenchJson,
  markdown: ScenarioMarkdown,
): string => {
  const problems: string[] = [];
  const tables: Record<string, () => string | undefined> = {
    flaky: () =>
      json.contenders === undefined ? undefined : contendersTable(json.contenders, true),
    healthy: () => (json.healthy === undefined ? undefined : contendersTable(json.healthy, false)),
    noisy: () =>
      json.noisyNeighbour === undefined ? undefined : markdown.noisy(json.noisyNeighbour),
    rateLimited: () =>
      json.rateLimited === undefined || markdown.rateLimited === undefined
        ? scenarioAbsent("rateLimited")
        : markdown.rateLimited(json.rateLimited),
    saturating: () =>
      json.saturating === undefined || markdown.saturating === undefined
        ? scenarioAbsent("saturating")
        : markdown.saturating(json.saturating),
    prices: pricesTable,
  };
  const rendered = template.replace(
    /\{\{(value|table):([A-Za-z0-9_.]+)\}\}/g,
    (whole, kind, name) => {
      const text = kind === "table" ? tables[name]?.() : valueAt(json, name);
      if (text === undefined) {
        problems.push(`${whole} has nothing in this run`);
        return whole;
      }
      return text;
    },
  );
  const stray = rendered
    .match(/\{\{[^}]*\}\}/g)
    ?.filter((p) => !problems.some((q) => q.startsWith(p)));
  if (stray !== undefined && stray.length > 0)
    problems.push(`unknown placeholders ${stray.join(", ")}`);
  if (problems.length > 0) throw new BenchmarksTemplateError(problems);
  return rendered;
};

/**
 * The run object of the output of `npm run bench -- --json`: its last non-empty line, or the
 * whole text when it is one JSON document (a saved run, perhaps formatted).
 */
export const parseBenchOutput = (text: string): BenchJson => {
  try {
    return JSON.parse(text) as BenchJson;
  } catch {
    const last = text.trim().split("\n").at(-1);
    if (last === undefined || last === "") throw new Error("no JSON line in the bench output");
    return JSON.parse(last) as BenchJson;
  }
};
