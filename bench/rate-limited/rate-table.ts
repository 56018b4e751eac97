import {
  bandText,
  type ComparisonRows,
  comparisonMarkdown,
  comparisonRows,
  comparisonTable,
  percent,
} from "../support/comparison-table.js";
import type { RateFigures, RateLimitedResult, RateVersus } from "./rate-limited.js";

const ROWS: ComparisonRows<RateFigures, keyof RateVersus> = {
  figures: [
    ["goodput, full quota (share of N)", (f) => percent(f.goodputShare.full)],
    ["goodput, halved (share of N/2)", (f) => percent(f.goodputShare.halved)],
    ["goodput, restored (share of N)", (f) => percent(f.goodputShare.restored)],
    ["s to re-converge after the cut", (f) => f.reconvergeSeconds.halved],
    ["s to re-converge after the restore", (f) => f.reconvergeSeconds.restored],
    ["429s per delivered event", (f) => f.refusalsPerDelivered],
    ["attempts per delivered event", (f) => f.attemptsPerDelivered],
    ["delivered", (f) => f.delivered],
    ["dead-lettered or undelivered", (f) => f.deadLettered],
    ["delivery p50 ms", (f) => f.p50Ms],
    ["delivery p99 ms", (f) => f.p99Ms],
  ],
  ratios: [
    ["429s per delivered", "refusalsPerDelivered"],
    ["restored goodput", "restoredGoodput"],
    ["p99", "p99Ms"],
  ],
};

/** The scenario's rows, a column per contender, for either renderer. */
const rateLimitedRows = (result: RateLimitedResult) => comparisonRows(result, ROWS);

/** What the table is read against: the partner's schedule and the A/A band. */
const rateLimitedNotes = (result: RateLimitedResult): readonly string[] => {
  const s = result.settings;
  const band = (key: keyof RateVersus) => bandText(result.noiseBand[key]);
  return [
    `Partner: token bucket of ${s.fullRate} calls/s, cut to ${s.fullRate / 2} after ${s.phaseMs / 1000} s and restored after ${(2 * s.phaseMs) / 1000} s for ${s.restoredMs / 1000} s; 429 with Retry-After: 1 above it. ${s.events} events at ${s.submitRate}/s, ${s.rounds} rounds, function concurrency ${s.concurrency} for every contender.`,
    `A/A band (${result.twins.map((pair) => pair.join(" ÷ ")).join(", ")}): 429s per delivered ${band("refusalsPerDelivered")}, restored goodput ${band("restoredGoodput")}, p99 ${band("p99Ms")}. A ratio inside it is noise.`,
  ];
};

export const rateLimitedTable = (result: RateLimitedResult): string =>
  comparisonTable("Rate-limited partner", rateLimitedRows(result), rateLimitedNotes(result));

export const rateLimitedMarkdown = (result: RateLimitedResult): string =>
  comparisonMarkdown(rateLimitedRows(result), rateLimitedNotes(result));
