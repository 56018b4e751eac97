import { DeleteMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRequestCounter } from "../../bench/support/request-counter.js";
import { sweepStuckEvents } from "../../lib/app/operator/stuck-sweep.js";
import { MetricName } from "../../lib/contract/metric-names.js";
import { CountingMetrics, silentLog } from "../../lib/core/observability.js";
import { EventStatus } from "../../lib/core/status.js";
import { DEFAULT_STUCK_LOOKBACK_DAYS, stuckAfterSecondsOf } from "../../lib/core/stuck.js";
import { VISIBILITY_TIMEOUT_FACTOR } from "../../lib/infra/retry-orchestrator-props.js";
import { resourceFlags } from "../cli/cli-world.js";
import { runCli } from "../cli/run-cli.js";
import { type DynamoRequestLog, startDynamoRequestLog } from "../support/dynamo-request-log.js";
import { localAws } from "../support/local-aws.js";
import { useOrchestratorHarness } from "../support/orchestrator-harness.js";
import { pollUntil } from "../support/poll-until.js";

/*
 * The design's promise: every accepted event is terminal or has a live message. An event whose
 * only message is deleted while it waits for its retry breaks it; the due index finds it without
 * a scan, for `ricochet events --stuck` and the sweep's alarm metric.
 *
 * The margin is the construct's ratio at its shortest settings: a 1 s function timeout gives a
 * 6 s visibility timeout (VISIBILITY_TIMEOUT_FACTOR), × maxReceiveCount 1.
 */
const STUCK_AFTER_SECONDS = stuckAfterSecondsOf({
  visibilityTimeoutSeconds: 1 * VISIBILITY_TIMEOUT_FACTOR,
  maxReceiveCount: 1,
});

const counter = createRequestCounter("stuck-events-counter");
const h = useOrchestratorHarness("stuck-events", () => ({ middleware: [counter.middleware] }));
let cliLog: DynamoRequestLog;

beforeAll(async () => {
  cliLog = await startDynamoRequestLog(localAws().endpoints.dynamodb);
});
afterAll(async () => {
  await cliLog?.close();
});

const soon = { baseDelaySeconds: 1, multiplier: 1, maxDelaySeconds: 1, jitter: "none" as const };
const later = {
  baseDelaySeconds: 600,
  multiplier: 1,
  maxDelaySeconds: 600,
  jitter: "none" as const,
};

const sweep = async (metrics: CountingMetrics, stuckAfterSeconds = STUCK_AFTER_SECONDS) =>
  sweepStuckEvents(
    { store: h.store, metrics, log: silentLog, clock: Date.now },
    {
      stuckAfterSeconds,
      lookbackDays: DEFAULT_STUCK_LOOKBACK_DAYS,
      limit: 50,
    },
  );

describe("stuck events", () => {
  it("lists an event whose only message was deleted while it waited, and no waiting or terminal one, without a scan", async () => {
    const stuck = "stuck-message-deleted";
    const waiting = "waiting-message-alive";
    const delivered = "delivered-terminal";
    h.script({ [stuck]: [503], [waiting]: [503], [delivered]: [200] });
    await h.startWorkers();
    await h.submit([
      h.envelope(stuck, { ...soon, maxAttempts: 5 }),
      h.envelope(waiting, { ...later, maxAttempts: 5 }),
      h.envelope(delivered, {}),
    ]);
    await h.waitForStatus(stuck, EventStatus.RETRY_SCHEDULED);
    await h.waitForStatus(waiting, EventStatus.RETRY_SCHEDULED);
    await h.waitForStatus(delivered, EventStatus.DELIVERED);
    await h.stopWorkers();
    // The operator's mistake: the retry's message, once its 1 s delay is over, deleted by hand.
    const [message] = await h.receiveIngress([stuck]);
    expect(message).toBeDefined();
    await h.clients.sqs.send(
      new DeleteMessageCommand({
        QueueUrl: h.queues.internalQueueUrl,
        ReceiptHandle: message?.receiptHandle ?? "",
      }),
    );
    counter.reset();

    const found = await pollUntil(
      async () => {
        const metrics = new CountingMetrics();
        const report = await sweep(metrics);
        return report.stuck.length > 0 ? { report, metrics } : undefined;
      },
      { timeoutMs: (STUCK_AFTER_SECONDS + 20) * 1000, intervalMs: 1000 },
    );
    const cli = await runCli(
      ["events", "--stuck", "--older-than", `${STUCK_AFTER_SECONDS}s`, "--json"].concat(
        resourceFlags({ ...h.queues, tableName: h.tableName }),
      ),
      { env: { AWS_ENDPOINT_URL_DYNAMODB: cliLog.endpoint } },
    );
    const listed = (JSON.parse(cli.stdout) as { eventId: string; status: string }[]).map((r) => [
      r.eventId,
      r.status,
    ]);

    expect(found?.report.stuck.map((r) => r.eventId)).toEqual([stuck]);
    expect(found?.metrics.counts.get(MetricName.STUCK_EVENTS)).toBe(1);
    expect(cli.code).toBe(0);
    expect(listed).toEqual([[stuck, EventStatus.RETRY_SCHEDULED]]);
    const sweepCalls = Object.keys(counter.snapshot());
    expect(sweepCalls).toContain("DynamoDB.Query");
    expect(sweepCalls).not.toContain("DynamoDB.Scan");
    expect(cliLog.operations).toContain("Query");
    expect(cliLog.operations).not.toContain("Scan");
  }, 90_000);

  it("emits a zero count when nothing is stuck, so the alarm has a datum", async () => {
    const metrics = new CountingMetrics();
    // A margin longer than the test has run: nothing is past it.
    const report = await sweep(metrics, 86_400);

    expect(report.stuck).toEqual([]);
    expect(metrics.counts.get(MetricName.STUCK_EVENTS)).toBe(0);
  });
});
