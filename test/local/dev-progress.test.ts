import { describe, expect, it } from "vitest";
import { type DevStep, progressLine } from "../../lib/local/dev-progress.js";

describe("progressLine (npm start's start-up steps)", () => {
  it.each<[string, DevStep, string]>([
    [
      "emulators started",
      { kind: "starting", starting: ["fauxqs (SQS)", "DynamoDB Local"], external: [] },
      "starting fauxqs (SQS) and DynamoDB Local in the background",
    ],
    [
      "one service on a configured endpoint",
      { kind: "starting", starting: ["DynamoDB Local"], external: ["SQS"] },
      "starting DynamoDB Local in the background (SQS: the configured endpoint)",
    ],
    [
      "a LocalStack for both",
      { kind: "starting", starting: [], external: ["SQS", "DynamoDB"] },
      "using the configured endpoints for SQS and DynamoDB, starting no emulator",
    ],
    ["the template", { kind: "synthesized", resources: 1 }, "template synthesized: 1 resource"],
    [
      "the emulators answering",
      { kind: "emulators-ready", sqs: "http://127.0.0.1:1", dynamodb: "http://127.0.0.1:2" },
      "SQS answers at http://127.0.0.1:1, DynamoDB at http://127.0.0.1:2",
    ],
    [
      "the resources",
      { kind: "provisioned", queues: 3, tables: 1 },
      "created the template's 3 queues and 1 table",
    ],
  ])("says %s", (_case, step, text) => {
    expect(progressLine(step, 0)).toBe(`[  0.0 s] ${text}`);
  });

  it("puts the seconds since the start began first, aligned", () => {
    expect(progressLine({ kind: "synthesizing" }, 12_345)).toMatch(/^\[ 12\.3 s\] synthesizing/);
  });
});
