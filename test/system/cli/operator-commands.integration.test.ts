import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@aws-sdk/client-sqs";
import { beforeAll, describe, expect, it } from "vitest";
import { createDynamoTargetStateStore } from "../../../lib/adapters/dynamo-target-state-store.js";
import type { DeadLetterListing } from "../../../lib/app/operator/dead-letter-scan.js";
import type { RedriveReport } from "../../../lib/app/operator/redrive.js";
import type { SubmitReport } from "../../../lib/client/producer-client.js";
import { ENV } from "../../../lib/contract/environment.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../../lib/core/circuit-breaker.js";
import type { Envelope } from "../../../lib/core/envelope.js";
import type { EventRecord } from "../../../lib/core/record.js";
import type { TargetReport } from "../../../lib/core/target-report.js";
import { missingQueueUrl, receiveRaw } from "../../adapters/sqs-test-support.js";
import { type CliWorld, createCliWorld } from "../../cli/cli-world.js";
import { expectOneLineError, runCli } from "../../cli/run-cli.js";
import { deadLetterEvent } from "../../support/dead-letter-fixture.js";
import { anEnvelope, anEventId, anHttpTarget } from "../../support/factories.js";
import { testClients } from "../../support/local-aws.js";
import { breakersOpenedFor } from "../../support/open-breaker.js";

const { documents } = testClients();

let world: CliWorld;
let resources: readonly string[];
let dead: Envelope[];
/** A dead-lettered event of one partner's group, for the commands narrowed to one target. */
let partnerEvent: Envelope;
const PARTNER = "group:partner-7";

beforeAll(async () => {
  world = await createCliWorld("cli");
  resources = world.resources;
  const { store, dlq } = world;
  partnerEvent = anEnvelope({
    target: anHttpTarget({ url: "https://partner.example/hooks", group: "partner-7" }),
  });
  dead = [
    await deadLetterEvent(store, dlq),
    await deadLetterEvent(store, dlq),
    await deadLetterEvent(store, dlq, partnerEvent, {
      "partner-7": ["http:https://partner.example:443"],
    }),
  ];
  await breakPartnerTarget();
});

/** The partner's breaker, opened by failures and turning one event away, as instances would. */
const breakPartnerTarget = async () => {
  const { breakers } = await breakersOpenedFor(
    createDynamoTargetStateStore({ doc: documents, tableName: world.tableName }),
    PARTNER,
    "HTTP 503: Bearer abc.def.ghi says no",
  );
  await breakers.admit(PARTNER);
};

describe("ricochet CLI", () => {
  it("submits one envelope from a file and reports it accepted", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ricochet-cli-"));
    const file = join(dir, "envelope.json");
    const envelope = anEnvelope();
    await writeFile(file, JSON.stringify(envelope, null, 2));
    const result = await runCli(["submit", "--file", file, "--json", ...resources]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as SubmitReport;
    expect(report.accepted.map((a) => a.eventId)).toEqual([envelope.eventId]);
    expect(report.rejected).toEqual([]);
  });

  it("submits with --traceparent and --tracestate as the messages' trace attributes", async () => {
    const envelope = anEnvelope();
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const args = ["submit", "--traceparent", traceparent, "--tracestate", "rojo=1", "--json"];
    const result = await runCli([...args, ...resources], { stdin: JSON.stringify(envelope) });
    expect(result.code).toBe(0);
    // Other tests here submit to the same queue: read until this envelope's message comes.
    const { sqs } = testClients();
    let message: Message | undefined;
    for (let batch = await receiveRaw(sqs, world.ingressQueueUrl); batch.length > 0; ) {
      message ??= batch.find((m) => m.Body === JSON.stringify(envelope));
      batch = message === undefined ? await receiveRaw(sqs, world.ingressQueueUrl) : [];
    }
    expect(message?.MessageAttributes?.traceparent?.StringValue).toBe(traceparent);
    expect(message?.MessageAttributes?.tracestate?.StringValue).toBe("rojo=1");
  });

  it("refuses a malformed --traceparent in one line, before sending anything", async () => {
    const result = await runCli(["submit", "--traceparent", "00-abc", ...resources], {
      stdin: JSON.stringify(anEnvelope()),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/invalid trace: traceparent: must be a W3C traceparent/);
    expectOneLineError(result.stderr);
  });

  it("refuses --at and --in together, naming both", async () => {
    const result = await runCli([
      "submit",
      "--at",
      "2030-01-01T00:00:00Z",
      "--in",
      "15m",
      ...resources,
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--at.*--in|--in.*--at/);
  });

  it("submits NDJSON from stdin, reports the bad line and exits 2 with one line", async () => {
    const good = anEnvelope();
    const stdin = `${JSON.stringify(good)}\n{"eventId":"half"\n`;
    const result = await runCli(["submit", "--json", ...resources], { stdin });
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout) as SubmitReport;
    expect(report.accepted.map((a) => a.eventId)).toEqual([good.eventId]);
    expect(report.rejected.map((r) => r.index)).toEqual([1]);
    expectOneLineError(result.stderr);
  });

  it("shows an event's record with its history", async () => {
    const [event] = dead;
    const result = await runCli(["status", event?.eventId ?? "", "--json", ...resources]);
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout) as EventRecord;
    expect(record).toMatchObject({ eventId: event?.eventId, status: "dead_lettered", attempts: 1 });
    expect(record.history).toHaveLength(1);
  });

  it("says when and how an event's policy was clamped to the deployment's limits", async () => {
    const { store } = world;
    const eventId = anEventId();
    const adjustments = [
      "maxAttempts 100 lowered to the deployment's ceiling 25",
      "baseDelaySeconds 0 raised to the deployment's floor 1",
    ];
    await store.claim({
      eventId,
      generation: 0,
      worker: "worker-a",
      nowMs: Date.now(),
      leaseMs: 10_000,
      envelopeDigest: "digest",
      attemptBudget: 25,
      targetSummary: "http POST https://receiver.example.com/",
      policyAdjustments: adjustments,
    });

    const human = await runCli(["status", eventId, ...resources]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("policy clamped");
    for (const adjustment of adjustments) expect(human.stdout).toContain(adjustment);
    const json = await runCli(["status", eventId, "--json", ...resources]);
    expect((JSON.parse(json.stdout) as EventRecord).policyAdjustments).toEqual(adjustments);
  });

  it("shows a scheduled event as due at its instant and how far off, the JSON keeping the raw fields", async () => {
    const { store } = world;
    const eventId = anEventId();
    const dueMs = Date.now() + 2 * 3_600_000;
    const due = new Date(dueMs).toISOString();
    await store.recordScheduled({
      eventId,
      envelopeDigest: "digest",
      dueMs,
      nowMs: Date.now(),
      attemptBudget: 8,
      targetSummary: "http POST https://receiver.example.com/",
    });

    const human = await runCli(["status", eventId, ...resources]);
    expect(human.code).toBe(0);
    // 2 h ahead when written; a slow run may read it a minute later.
    expect(human.stdout).toContain(`scheduled, due ${due} (in `);
    expect(human.stdout).toMatch(/\(in (2h|1h 5\dm)\)/);
    const json = await runCli(["status", eventId, "--json", ...resources]);
    expect(JSON.parse(json.stdout) as EventRecord).toMatchObject({
      status: "scheduled",
      nextAttemptAt: due,
    });
  });

  it("exits 1 with one line for an event that has no record", async () => {
    const result = await runCli(["status", "no-such-event", ...resources]);
    expect(result.code).toBe(1);
    expectOneLineError(result.stderr);
  });

  it("lists events by status", async () => {
    const result = await runCli(["events", "--status", "dead_lettered", "--json", ...resources]);
    expect(result.code).toBe(0);
    const ids = (JSON.parse(result.stdout) as EventRecord[]).map((r) => r.eventId);
    expect(ids.sort()).toEqual(dead.map((e) => e.eventId).sort());
  });

  it("lists the most recently updated events of every status without --status", async () => {
    const result = await runCli(["events", "--json", ...resources]);
    expect(result.code).toBe(0);
    const records = JSON.parse(result.stdout) as EventRecord[];
    expect(records.map((r) => r.eventId)).toEqual(
      expect.arrayContaining(dead.map((e) => e.eventId)),
    );
    const times = records.map((r) => r.updatedAt);
    expect(times).toEqual([...times].sort().reverse());

    const one = await runCli(["events", "--limit", "1", ...resources]);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain(records[0]?.eventId ?? "?");
    expect(one.stdout).not.toContain(records[1]?.eventId ?? "?");
  });

  it("warns on stderr when --max-read stops a listing early, and keeps stdout's JSON as it was", async () => {
    const args = [
      "events",
      "--status",
      "dead_lettered",
      "--target",
      "http:https://nobody.example:443",
    ];
    const cut = await runCli([...args, "--max-read", "1", "--json", ...resources]);
    expect(cut.code).toBe(0);
    expect(JSON.parse(cut.stdout)).toEqual([]);
    expect(cut.stderr).toMatch(/warning: stopped after reading 1 records.*--max-read/);
    const whole = await runCli([...args, "--json", ...resources]);
    expect(JSON.parse(whole.stdout)).toEqual([]);
    expect(whole.stderr).not.toContain("warning");
  });

  it("lists the dead-letter queue without consuming it", async () => {
    const list = async () => {
      const result = await runCli(["dlq", "list", "--reason", "exhausted", "--json", ...resources]);
      expect(result.code).toBe(0);
      return (JSON.parse(result.stdout) as DeadLetterListing[]).map((m) => m.eventId).sort();
    };
    const expected = dead.map((e) => e.eventId).sort();
    expect(await list()).toEqual(expected);
    expect(await list()).toEqual(expected);
  });

  it("lists targets with their breaker state, failures, deferrals and redacted last error", async () => {
    // The deployment runs breakers, and the CLI is told so as the docs say.
    const breakersOn = { env: { [ENV.CIRCUIT_BREAKER]: "on" } };
    const result = await runCli(["targets", "--json", ...resources], breakersOn);
    expect(result.code).toBe(0);
    const reports = JSON.parse(result.stdout) as TargetReport[];
    expect(reports).toHaveLength(1);
    const calls = DEFAULT_BREAKER_SETTINGS.minimumCalls;
    // Counts are the current aligned window's (1 min): a run that crosses a minute boundary
    // after the breaker opened sees a fresh, empty window, still open.
    expect([calls, 0]).toContain(reports[0]?.calls);
    expect(reports[0]?.failures).toBe(reports[0]?.calls);
    expect(reports[0]).toMatchObject({
      target: PARTNER,
      state: "open",
      deferred: 1,
      lastError: "HTTP 503: Bearer [redacted] says no",
    });
    expect(Date.parse(reports[0]?.reopenAt ?? "")).toBeGreaterThan(Date.now());
    expect(Date.parse(reports[0]?.openedAt ?? "")).toBeLessThanOrEqual(Date.now());

    const human = await runCli(["targets", ...resources], breakersOn);
    expect(human.stdout).toMatch(/group:partner-7 .*open, probe in \d+m/);
    expect(human.stdout).not.toContain("abc.def.ghi");
  });

  it("narrows events, the dead-letter listing and a redrive to one target", async () => {
    const only = [partnerEvent.eventId];
    const events = await runCli([
      "events",
      "--status",
      "dead_lettered",
      "--target",
      PARTNER,
      "--json",
      ...resources,
    ]);
    expect((JSON.parse(events.stdout) as EventRecord[]).map((r) => r.eventId)).toEqual(only);
    const listing = await runCli(["dlq", "list", "--target", PARTNER, "--json", ...resources]);
    expect((JSON.parse(listing.stdout) as DeadLetterListing[]).map((m) => m.eventId)).toEqual(only);
    const redrive = await runCli([
      "redrive",
      "--target",
      PARTNER,
      "--dry-run",
      "--json",
      ...resources,
    ]);
    expect((JSON.parse(redrive.stdout) as RedriveReport).moved.map((m) => m.eventId)).toEqual(only);
  });

  it("takes a URL for --target as its origin's key", async () => {
    const receiver = dead[1]?.eventId ?? "";
    const listing = await runCli([
      "dlq",
      "list",
      "--target",
      "https://RECEIVER.example.com/other/path",
      "--json",
      ...resources,
    ]);
    expect((JSON.parse(listing.stdout) as DeadLetterListing[]).map((m) => m.eventId)).toContain(
      receiver,
    );
    expect((JSON.parse(listing.stdout) as DeadLetterListing[]).map((m) => m.eventId)).not.toContain(
      partnerEvent.eventId,
    );
  });

  it("redrives: a dry run lists what the real run then moves", async () => {
    const [first] = dead;
    const args = ["redrive", "--event-id", first?.eventId ?? "", "--json", ...resources];
    const dry = await runCli([...args, "--dry-run"]);
    expect(dry.code).toBe(0);
    const dryReport = JSON.parse(dry.stdout) as RedriveReport;
    const real = await runCli([...args, "--reset-attempts", "--why", "fixed"]);
    expect(real.code).toBe(0);
    const realReport = JSON.parse(real.stdout) as RedriveReport;
    expect(dryReport.moved.map((m) => m.eventId)).toEqual([first?.eventId]);
    expect(realReport.moved.map((m) => m.eventId)).toEqual([first?.eventId]);
    const status = await runCli(["status", first?.eventId ?? "", "--json", ...resources]);
    const record = JSON.parse(status.stdout) as EventRecord;
    expect(record.status).toBe("pending");
    expect(record.redrives[0]).toMatchObject({ by: "cli-test", reason: "fixed" });
  });

  it.each([
    [["redrive", "--rate", "fast"]],
    [["redrive", "--reset-attempts", "--extra-attempts", "2"]],
    [["redrive", "--since", "yesterday"]],
    [["events", "--status", "lost"]],
    [["dlq", "list", "--reason", "bored"]],
    [["dlq", "list", "--target", "https://"]],
    [["submit"]],
  ])("exits 2 with one line for bad input: %j", async (args) => {
    const result = await runCli([...args, ...resources]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("exits 1 with one line for a queue that does not exist", async () => {
    const result = await runCli(["submit", "--queue-url", missingQueueUrl(world.ingressQueueUrl)], {
      stdin: JSON.stringify(anEnvelope()),
    });
    expect(result.code).toBe(1);
    expectOneLineError(result.stderr);
    expect(result.stderr).toMatch(/queue does not exist/);
  });
});
