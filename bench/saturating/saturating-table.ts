import {
  bandText,
  type ComparisonRows,
  comparisonMarkdown,
  comparisonRows,
  comparisonTable,
  percent,
} from "../support/comparison-table.js";
import type { SaturatingResult, SaturatingVersus } from "./saturating.js";
import type { SaturatingFigures } from "./saturating-figures.js";

const ROWS: ComparisonRows<SaturatingFigures, keyof SaturatingVersus> = {
  figures: [
    ["partner goodput (share of its capacity)", (f) => percent(f.goodputShare)],
    ["503s per delivered partner event", (f) => f.overloadsPerDelivered],
    ["attempts per delivered partner event", (f) => f.attemptsPerDelivered],
    ["partner delivery p50 ms", (f) => f.partnerP50Ms],
    ["partner delivery p99 ms", (f) => f.partnerP99Ms],
    ["healthy neighbour delivery p50 ms", (f) => f.healthyP50Ms],
    ["healthy neighbour delivery p99 ms", (f) => f.healthyP99Ms],
    ["delivered", (f) => f.delivered],
    ["dead-lettered or undelivered", (f) => f.deadLettered],
  ],
  ratios: [
    ["healthy neighbour p99", "healthyP99Ms"],
    ["503s per delivered", "overloadsPerDelivered"],
    ["partner goodput", "goodputShare"],
  ],
};

const saturatingRows = (result: SaturatingResult) => comparisonRows(result, ROWS);

/** What the table is read against: the partner's shape and the A/A band. */
const saturatingNotes = (result: SaturatingResult): readonly string[] => {
  const s = result.settings;
  const band = (key: keyof SaturatingVersus) => bandText(result.noiseBand[key]);
  return [
    `Partner: ${s.shape.capacity} calls at once, ${s.shape.baseLatencyMs} ms alone and ${s.shape.latencyAtCapacity}× that at capacity (at most ${Math.round(s.capacityPerSecond * 10) / 10} answers/s), 503 past it; healthy neighbour answers in ${s.shape.healthyLatencyMs} ms. ${s.events} events at ${s.submitRate}/s, one in ${s.healthyEvery} to the neighbour, ${s.rounds} rounds, function concurrency ${s.concurrency} for every contender. Goodput is measured while events are sent.`,
    `A/A band (${result.twins.map((pair) => pair.join(" ÷ ")).join(", ")}): healthy p99 ${band("healthyP99Ms")}, 503s per delivered ${band("overloadsPerDelivered")}, partner goodput ${band("goodputShare")}. A ratio inside it is noise.`,
  ];
};

export const saturatingTable = (result: SaturatingResult): string =>
  comparisonTable("Saturating partner", saturatingRows(result), saturatingNotes(result));

export const saturatingMarkdown = (result: SaturatingResult): string =>
  comparisonMarkdown(saturatingRows(result), saturatingNotes(result));
