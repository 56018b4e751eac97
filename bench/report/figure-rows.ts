import type { ContenderFigures } from "../harness.js";
import { mappingsText } from "../support/deployment.js";

/** One row of a contenders' table: a label and one cell per contender, in their order. */
export interface FigureRow {
  readonly label: string;
  readonly cells: readonly string[];
}

type Read = (f: ContenderFigures) => unknown;

/** The rows every scenario's table has: setup, speed, requests, the bill. */
const CORE_ROWS: readonly (readonly [string, Read])[] = [
  ["function concurrency (shared by its mappings)", (f) => f.setup.concurrency],
  ["  mappings: queue (batch, window s, visibility s)", (f) => mappingsText(f.setup.deployment)],
  [
    "  function timeout s, memory MB",
    (f) => `${f.setup.deployment.timeoutSeconds}, ${f.setup.deployment.memoryMb}`,
  ],
  ["  peak invocations at once", (f) => f.peakConcurrency],
  ["events/s (to 95% delivered)", (f) => f.eventsPerSecond],
  [
    "events/s ÷ baseline, same round: median (min–max)",
    (f) => {
      const ratio = f.eventsPerSecondVsBaseline;
      return ratio === null ? null : `${ratio.median} (${ratio.min}–${ratio.max})`;
    },
  ],
  ["  against the A/A band", (f) => f.verdictVsBaseline],
  ["ms to the last delivery", (f) => f.allDeliveredMs],
  ["target calls/event", (f) => f.attemptsPerEvent],
  ["AWS requests/event", (f) => f.requestsPerEvent],
  ["DynamoDB writes/event", (f) => f.dynamoWritesPerEvent],
  ["DynamoDB writes/attempt", (f) => f.dynamoWritesPerAttempt],
  ["DynamoDB reads/event", (f) => f.dynamoReadsPerEvent],
  ["DynamoDB write units/event", (f) => f.dynamoWriteUnitsPerEvent],
  ["  of which index units", (f) => f.dynamoIndexWriteUnitsPerEvent],
  ["CPU ms/record", (f) => f.cpuMsPerRecord],
  ["SQS requests/event as billed (64 KiB chunks)", (f) => f.sqsBilledRequestsPerEvent],
  ["Lambda invocations/event", (f) => f.lambdaInvocationsPerEvent],
  ["Lambda billed ms/event", (f) => f.lambdaBilledMsPerEvent],
  ["stored bytes/event", (f) => f.storedBytesPerEvent],
  ["$/M: SQS", (f) => f.usdPerMillion.sqs],
  ["$/M: DynamoDB writes", (f) => f.usdPerMillion.dynamoWrites],
  ["$/M: DynamoDB reads", (f) => f.usdPerMillion.dynamoReads],
  ["$/M: DynamoDB storage (retention, PITR)", (f) => f.usdPerMillion.dynamoStorage],
  ["$/M: Lambda requests", (f) => f.usdPerMillion.lambdaRequests],
  ["$/M: Lambda duration", (f) => f.usdPerMillion.lambdaDuration],
  ["$ per million events, every cost", (f) => f.usdPerMillion.total],
  ["  SQS + writes above the floor, $/M", (f) => f.usdAboveFloor],
  ["fraction of ceiling", (f) => f.ceilingFraction],
];

/** The rows only the headline (flaky) table has: timing, records, the bundle. */
const DETAIL_ROWS: readonly (readonly [string, Read])[] = [
  ["schedule error p50 ms", (f) => f.scheduleErrorP50Ms],
  ["schedule error p99 ms", (f) => f.scheduleErrorP99Ms],
  ["retry gap p50 ms", (f) => f.retryGapP50Ms],
  ["retry gap p99 ms", (f) => f.retryGapP99Ms],
  [
    "record bytes p50 / max",
    (f) => (f.recordBytesP50 === null ? null : `${f.recordBytesP50} / ${f.recordBytesMax}`),
  ],
  ["bundle bytes", (f) => f.bundleBytes],
  ["init ms", (f) => f.initMs],
  ["first (empty) batch ms", (f) => f.firstBatchMs],
  ["init + first batch ms", (f) => f.coldStartMs],
];

const cell = (value: unknown): string =>
  value === null || value === undefined ? "–" : String(value);

/**
 * The rows of one scenario's table, for the terminal (bench/run.ts) and for BENCHMARKS.md
 * (bench/report/benchmarks-document.ts) alike. `withDetails` adds the timing and bundle rows and
 * the requests by API and by queue.
 */
export const figureRows = (
  figures: Readonly<Record<string, ContenderFigures>>,
  withDetails: boolean,
): FigureRow[] => {
  const names = Object.keys(figures);
  const row = (label: string, read: Read): FigureRow => ({
    label,
    cells: names.map((n) => {
      const f = figures[n];
      return cell(f === undefined ? undefined : read(f));
    }),
  });
  const keysOf = (pick: (f: ContenderFigures) => Record<string, number>) =>
    [...new Set(names.flatMap((n) => Object.keys(pick(figures[n] as ContenderFigures))))].sort();
  return [
    ...CORE_ROWS.map(([label, read]) => row(label, read)),
    ...(withDetails
      ? [
          ...DETAIL_ROWS.map(([label, read]) => row(label, read)),
          ...keysOf((f) => f.requestsByApi).map((api) =>
            row(`  ${api}/event`, (f) => f.requestsByApi[api] ?? 0),
          ),
          ...keysOf((f) => f.sqsRequestsByQueue).map((call) =>
            row(`  SQS ${call}/event`, (f) => f.sqsRequestsByQueue[call] ?? 0),
          ),
        ]
      : []),
  ];
};
