/** The options `npm run bench` takes (bench/run.ts), for its parser and for the docs' tests. */
export const BENCH_OPTIONS = {
  json: { type: "boolean", default: false },
  /** Only Ricochet: tracing off, on, and off again as the A/A twin, side by side. */
  tracing: { type: "boolean", default: false },
  events: { type: "string" },
  rounds: { type: "string" },
  seed: { type: "string" },
  rate: { type: "string" },
  latency: { type: "string" },
  concurrency: { type: "string" },
  "cold-start": { type: "boolean", default: false },
  samples: { type: "string" },
  scenario: { type: "string" },
  "noisy-rounds": { type: "string" },
} as const;
