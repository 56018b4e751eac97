import { describe, expect, it } from "vitest";
import { redeliveryDeployment } from "../../bench/contender.js";
import {
  DEFAULT_NOISY_SETTINGS,
  NOISY_KINDS,
  type NoisyContenderFigures,
  type NoisyNeighbourResult,
} from "../../bench/noisy-neighbour/noisy-neighbour.js";
import { compareScenario } from "../../bench/noisy-neighbour/noisy-report.js";
import {
  noisyNeighbourMarkdown,
  noisyNeighbourTable,
} from "../../bench/noisy-neighbour/noisy-table.js";

const figures = (p99: number, calls: number): NoisyContenderFigures => {
  const healthy = { events: 240, delivered: 240, p50Ms: 10, p99Ms: p99, eventsPerSecond: 16 };
  const scenario = {
    healthy,
    perRound: [{ healthyP99Ms: p99, downCallsPerMinute: calls }],
    slowDelivered: 30,
    down: null,
    awsRequestsPerEvent: 3,
    failedBatches: 0,
    wallMs: 20_000,
  };
  return {
    setup: {
      concurrency: 10,
      deployment: redeliveryDeployment(DEFAULT_NOISY_SETTINGS.retry, {
        timeoutSeconds: 60,
        memoryMb: 512,
      }),
    },
    allHealthy: { ...healthy, awsRequestsPerEvent: 3, failedBatches: 0 },
    outage: scenario,
    recoveryMidRun: scenario,
  };
};

const result = (): NoisyNeighbourResult => {
  const contenders = {
    subject: figures(40, 20),
    subjectAA: figures(44, 22),
    "odd|name": figures(400, 200),
  };
  const comparison = compareScenario({
    subject: "subject",
    twins: [["subjectAA", "subject"]],
    perRound: Object.fromEntries(
      Object.entries(contenders).map(([name, f]) => [name, f.outage.perRound]),
    ),
    pooled: Object.fromEntries(
      Object.entries(contenders).map(([name, f]) => [
        name,
        f.outage.perRound[0] ?? { healthyP99Ms: null, downCallsPerMinute: null },
      ]),
    ),
  });
  return {
    settings: { ...DEFAULT_NOISY_SETTINGS, rounds: 1, targets: NOISY_KINDS },
    order: [],
    subject: "subject",
    contenders,
    comparison: { outage: comparison, recoveryMidRun: comparison },
  };
};

describe("noisyNeighbourMarkdown", () => {
  const markdown = noisyNeighbourMarkdown(result());

  it("gives each scenario a table with a column per contender", () => {
    const heads = markdown.split("\n").filter((line) => line.startsWith("| figure |"));
    expect(heads).toEqual([
      "| figure | subject | subjectAA | odd\\|name |",
      "| figure | subject | subjectAA | odd\\|name |",
    ]);
  });

  it("prints the budget, the absolute p99s, the calls while down, the band and the verdicts", () => {
    expect(markdown).toContain("| function concurrency (shared by its mappings) | 10 | 10 | 10 |");
    expect(markdown).toContain("| healthy p99 ms | 40 | 44 | 400 |");
    expect(markdown).toMatch(/\| +subject against the A\/A band \| – \| – \| faster \|/);
    expect(markdown).toMatch(/\| +subject against the A\/A band \| – \| – \| fewer \|/);
    // The A/A pair measured 10% apart: the band is 1/1.1–1.1.
    expect(markdown).toContain("healthy p99 0.909–1.100");
    expect(markdown).toContain("healthy p99 below every other contender's: true");
  });

  it("keeps every row as wide as its head, a pipe in a name escaped", () => {
    const cellsOf = (line: string) => line.split(/(?<!\\)\|/).length;
    const rows = markdown.split("\n").filter((line) => line.startsWith("|"));
    expect(new Set(rows.map(cellsOf))).toEqual(new Set([cellsOf(rows[0] ?? "")]));
  });
});

describe("noisyNeighbourTable", () => {
  it("shows the same figures as text", () => {
    const table = noisyNeighbourTable(result());
    expect(table).toContain("A/A (subjectAA ÷ subject");
    expect(table).toContain("fewer");
  });
});
