import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SCHEDULE_ATTRIBUTE } from "../../../lib/adapters/message-schedule.js";
import { NO_STS_ENDPOINT } from "../../../lib/adapters/sts-caller-identity.js";
import type { CancelReport } from "../../../lib/app/operator/cancel.js";
import type { ReplayReport } from "../../../lib/app/operator/replay.js";
import type { EventStore } from "../../../lib/core/ports.js";
import { AuditAction, CallerSource } from "../../../lib/core/record.js";
import { EventStatus } from "../../../lib/core/status.js";
import { receiveRaw } from "../../adapters/sqs-test-support.js";
import { createCliWorld } from "../../cli/cli-world.js";
import { expectOneLineError, runCli } from "../../cli/run-cli.js";
import { anEnvelope, anEventId } from "../../support/factories.js";
import { testClients } from "../../support/local-aws.js";
import { recordedEvent } from "../../support/recorded-event-fixture.js";

/*
 * `ricochet cancel` and `ricochet replay` as an operator runs them, against the emulators: records
 * written through the real store, the CLI in its own process.
 */
const { sqs } = testClients();
let internalQueueUrl: string;
let store: EventStore;
let resources: readonly string[];

beforeAll(async () => {
  ({ internalQueueUrl, store, resources } = await createCliWorld("cli-ops"));
});

const envelopeFile = async (text: string): Promise<string> => {
  const file = join(await mkdtemp(join(tmpdir(), "ricochet-replay-")), "envelopes.ndjson");
  await writeFile(file, text);
  return file;
};

describe("ricochet cancel", () => {
  it("cancels waiting events, refuses a delivered one with the reason, and exits 3", async () => {
    const [scheduled, waiting, delivered] = [anEnvelope(), anEnvelope(), anEnvelope()];
    await recordedEvent(store, scheduled, EventStatus.SCHEDULED);
    await recordedEvent(store, waiting, EventStatus.RETRY_SCHEDULED);
    const deliveredBefore = await recordedEvent(store, delivered, EventStatus.DELIVERED);
    const ids = [scheduled.eventId, waiting.eventId, delivered.eventId];

    const result = await runCli([
      "cancel",
      ...ids,
      "--reason",
      "order withdrawn",
      "--by",
      "alice",
      "--json",
      ...resources,
    ]);

    expect(result.code).toBe(3);
    expectOneLineError(result.stderr);
    expect(result.stderr).toContain(delivered.eventId);
    const report = JSON.parse(result.stdout) as CancelReport;
    expect(report.cancelled).toEqual([
      { eventId: scheduled.eventId, previousStatus: EventStatus.SCHEDULED },
      { eventId: waiting.eventId, previousStatus: EventStatus.RETRY_SCHEDULED },
    ]);
    expect(report.refused).toEqual([
      { eventId: delivered.eventId, reason: expect.stringContaining("already delivered") },
    ]);
    for (const { eventId } of [scheduled, waiting]) {
      const record = await store.get(eventId);
      expect(record?.status).toBe(EventStatus.CANCELLED);
      expect(record?.audit).toEqual([
        expect.objectContaining({
          action: AuditAction.CANCELLED,
          by: "alice",
          reason: "order withdrawn",
          // Only the emulators run here: the caller is recorded unverified, saying why.
          caller: { source: CallerSource.OPERATOR, unverified: NO_STS_ENDPOINT },
        }),
      ]);
    }
    expect(await store.get(delivered.eventId)).toEqual(deliveredBefore);

    // `status` shows the cancel's audit entry: who, the status it left, why.
    const status = await runCli(["status", waiting.eventId, ...resources]);
    expect(status.stdout).toMatch(/alice.*cancelled.*retry_scheduled.*order withdrawn/);
  });

  it("exits 0 when every event was cancelled, and a dry run changes nothing", async () => {
    const waiting = anEnvelope();
    const before = await recordedEvent(store, waiting, EventStatus.RETRY_SCHEDULED);

    const dry = await runCli(["cancel", waiting.eventId, "--dry-run", ...resources]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("would cancel");
    expect(dry.stdout).toContain("Dry run: 1 would cancel, 0 refused, 0 failed.");
    expect(await store.get(waiting.eventId)).toEqual(before);

    const real = await runCli(["cancel", waiting.eventId, ...resources]);
    expect(real.code).toBe(0);
    expect(real.stderr).toBe("");
    expect(real.stdout).toContain("1 cancelled, 0 refused, 0 failed.");
    // The audit names the operator's account when --by is not given.
    expect((await store.get(waiting.eventId))?.audit).toEqual([
      expect.objectContaining({ by: "cli-test", reason: "no reason given" }),
    ]);
  });

  it("refuses an invalid event id before any AWS call, exit 2", async () => {
    const result = await runCli(["cancel", "bad id with spaces", "--table", "no-such-table"]);
    expect(result.code).toBe(2);
    expectOneLineError(result.stderr);
    expect(result.stderr).toContain("eventIds");
  });
});

describe("ricochet replay", () => {
  it("sends a delivered event again at the next generation and audits it; refuses the rest, exit 3", async () => {
    const delivered = anEnvelope();
    const waiting = anEnvelope();
    const before = await recordedEvent(store, delivered, EventStatus.DELIVERED);
    await recordedEvent(store, waiting, EventStatus.RETRY_SCHEDULED);
    const file = await envelopeFile(`${JSON.stringify(delivered)}\n${JSON.stringify(waiting)}\n`);

    const result = await runCli([
      "replay",
      delivered.eventId,
      waiting.eventId,
      "--file",
      file,
      "--reason",
      "receiver lost its database",
      "--by",
      "alice",
      "--json",
      ...resources,
    ]);

    expect(result.code).toBe(3);
    expectOneLineError(result.stderr);
    const report = JSON.parse(result.stdout) as ReplayReport;
    expect(report.replayed).toEqual([
      {
        eventId: delivered.eventId,
        generation: before.generation + 1,
        attemptBudget: expect.any(Number),
        replay: 1,
      },
    ]);
    expect(report.refused).toEqual([
      { eventId: waiting.eventId, reason: expect.stringContaining("only a delivered event") },
    ]);
    const record = await store.get(delivered.eventId);
    expect(record).toMatchObject({
      status: EventStatus.PENDING,
      generation: before.generation + 1,
      replays: 1,
    });
    expect(record?.audit).toEqual([
      expect.objectContaining({
        action: AuditAction.REPLAYED,
        by: "alice",
        reason: "receiver lost its database",
        previousStatus: EventStatus.DELIVERED,
        caller: { source: CallerSource.OPERATOR, unverified: NO_STS_ENDPOINT },
      }),
    ]);
    const status = await runCli(["status", delivered.eventId, ...resources]);
    expect(status.stdout).toMatch(/replays\s*│\s*1/);
    // The envelope goes out as sent, on the internal queue, at the replay's generation.
    const sent = await receiveRaw(sqs, internalQueueUrl);
    const copy = sent.find((m) => m.Body === JSON.stringify(delivered));
    expect(copy?.MessageAttributes?.[SCHEDULE_ATTRIBUTE.GENERATION]?.StringValue).toBe(
      String(before.generation + 1),
    );
  });

  it("refuses an envelope other than the accepted one and sends nothing", async () => {
    const delivered = anEnvelope();
    const before = await recordedEvent(store, delivered, EventStatus.DELIVERED);
    const stdin = JSON.stringify({ ...delivered, payload: { forged: true } });
    const result = await runCli(["replay", delivered.eventId, "--json", ...resources], { stdin });
    expect(result.code).toBe(3);
    const report = JSON.parse(result.stdout) as ReplayReport;
    expect(report.refused).toEqual([
      { eventId: delivered.eventId, reason: expect.stringContaining("not the envelope") },
    ]);
    expect(await store.get(delivered.eventId)).toEqual(before);
  });

  it("stops on an envelope line that is not JSON, exit 2, nothing sent", async () => {
    const delivered = anEnvelope();
    const before = await recordedEvent(store, delivered, EventStatus.DELIVERED);
    const file = await envelopeFile(`${JSON.stringify(delivered)}\n{"eventId":\n`);
    const result = await runCli(["replay", delivered.eventId, "--file", file, ...resources]);
    expect(result.code).toBe(2);
    expectOneLineError(result.stderr);
    expect(result.stderr).toContain("line 2");
    expect(await store.get(delivered.eventId)).toEqual(before);
  });

  it("reports an event named without an envelope as refused", async () => {
    const result = await runCli(["replay", anEventId(), "--json", ...resources], {
      stdin: JSON.stringify(anEnvelope()),
    });
    expect(result.code).toBe(3);
    const report = JSON.parse(result.stdout) as ReplayReport;
    expect(report.refused).toEqual([
      expect.objectContaining({ reason: "no envelope was given for it" }),
    ]);
  });
});
