import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localAwsEnv } from "../../../lib/adapters/aws-clients.js";
import { redrive } from "../../../lib/app/operator/redrive.js";
import type { RedriveRequestInput } from "../../../lib/app/operator/redrive-request.js";
import { createRicochetClient } from "../../../lib/client/producer-client.js";
import { silentLog } from "../../../lib/core/observability.js";
import { type DevSession, startDevSession } from "../../../lib/local/dev-session.js";
import { runSmokeCheck, type SmokeSummary } from "../../../lib/local/smoke/smoke-check.js";
import { type SmokeReceiver, startSmokeReceiver } from "../../../lib/local/smoke/smoke-receiver.js";
import { inProcessRedriveDeps } from "../../../lib/runtime/in-process-redrive-deps.js";
import { localAws } from "../../support/local-aws.js";

/*
 * `npm run localstack:smoke` cannot run here (no container engine), so its drive-and-check runs
 * against what `ricochet dev --no-demo --allow-host 127.0.0.1` runs: the template's queues and
 * table on the test emulators, the orchestrator's handler behind the event-source poller, and the
 * in-process redrive the CLI uses in place of the deployed operator function. The receiver is the
 * smoke's own, on loopback instead of 0.0.0.0 behind host.docker.internal.
 */
let session: DevSession;
const receivers: SmokeReceiver[] = [];

beforeAll(async () => {
  session = await startDevSession({
    log: silentLog,
    env: localAwsEnv(localAws()),
    extraAllowedHosts: ["127.0.0.1"],
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.stop()));
  await session?.stop();
});

/** One smoke run against the session; `recovers: false` keeps the recovering target failing. */
const smoke = async (
  runId: string,
  recovers: boolean,
  timeoutMs = 45_000,
): Promise<SmokeSummary> => {
  const receiver = await startSmokeReceiver({ host: "127.0.0.1" });
  receivers.push(receiver);
  const { config, ports, clients } = session;
  return runSmokeCheck({
    client: createRicochetClient({ queueUrl: config.ingressQueueUrl, sqs: clients.sqs }),
    store: ports.store,
    receiverUrl: `http://127.0.0.1:${receiver.port}`,
    recover: recovers ? receiver.recover : () => undefined,
    redrive: (request: RedriveRequestInput) =>
      redrive(inProcessRedriveDeps(ports, config), request),
    timeoutMs,
    pollMs: 200,
    runId,
  });
};

describe("the LocalStack smoke's drive-and-check, against the emulators", () => {
  // Both runs at once, on their own receivers and event ids: half the wait.
  let good: SmokeSummary;
  let stuck: SmokeSummary;
  beforeAll(async () => {
    [good, stuck] = await Promise.all([
      smoke(`smoke-good-${Date.now()}`, true),
      smoke(`smoke-stuck-${Date.now()}`, false),
    ]);
  }, 60_000);

  it("sees every scenario end as expected, and says so in one JSON summary", () => {
    expect(JSON.parse(JSON.stringify(good))).toEqual(good);
    expect(good.ok).toBe(true);
    expect(good.redrive).toMatchObject({ moved: 1, failed: 0 });
    expect(
      good.scenarios.map((s) => [s.scenario, s.ok, s.finished, s.actual.status, s.actual.attempts]),
    ).toEqual([
      ["delivered", true, true, "delivered", 1],
      ["retried_then_delivered", true, true, "delivered", 3],
      ["dead_lettered", true, true, "rejected", 1],
      ["redriven_then_delivered", true, true, "delivered", 2],
    ]);
    for (const scenario of good.scenarios) {
      expect(scenario.actual).toEqual(scenario.expected);
      expect(scenario.eventId).toBe(`${good.runId}:${scenario.scenario}`);
      expect(scenario.seconds).toBeGreaterThan(0);
      expect(scenario.seconds).toBeLessThanOrEqual(good.seconds);
    }
  });

  it("reports a scenario that ends otherwise as a mismatch, and the run as not ok", () => {
    expect(stuck.ok).toBe(false);
    const failed = stuck.scenarios.filter((s) => !s.ok);
    // Redriven into a receiver that still answers 400: rejected again, after its second attempt.
    expect(failed).toEqual([
      expect.objectContaining({
        scenario: "redriven_then_delivered",
        finished: true,
        expected: { status: "delivered", attempts: 2 },
        actual: { status: "rejected", attempts: 2 },
      }),
    ]);
  });

  it("gives up at the timeout, with what it saw last, and is not ok", async () => {
    const late = await smoke(`smoke-late-${Date.now()}`, true, 0);

    expect(late.ok).toBe(false);
    for (const scenario of late.scenarios) {
      expect(scenario).toMatchObject({ ok: false, finished: false });
      expect(
        scenario.actual.status === null ||
          !["delivered", "rejected"].includes(scenario.actual.status),
      ).toBe(true);
    }
  });
});
