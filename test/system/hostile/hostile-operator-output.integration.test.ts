import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { beforeAll, describe, expect, it } from "vitest";
import { createDynamoTargetStateStore } from "../../../lib/adapters/dynamo-target-state-store.js";
import { DEAD_LETTER_SUMMARY_ATTRIBUTE } from "../../../lib/adapters/sqs-dead-letter-queue.js";
import type { DeadLetterListing } from "../../../lib/app/operator/dead-letter-scan.js";
import type { RedriveReport } from "../../../lib/app/operator/redrive.js";
import { DEAD_LETTER_KIND, DEAD_LETTER_VERSION } from "../../../lib/core/dead-letter.js";
import type { Envelope } from "../../../lib/core/envelope.js";
import type { EventRecord } from "../../../lib/core/record.js";
import type { TargetReport } from "../../../lib/core/target-report.js";
import { targetErrorExcerpt } from "../../../lib/core/target-view.js";
import { type CliWorld, createCliWorld } from "../../cli/cli-world.js";
import { runCli } from "../../cli/run-cli.js";
import { deadLetterEvent } from "../../support/dead-letter-fixture.js";
import { anEnvelope } from "../../support/factories.js";
import { testClients } from "../../support/local-aws.js";
import { breakersOpenedFor } from "../../support/open-breaker.js";
import { OBEYED_BY_TERMINALS, showsForgedStatusLine, TERMINAL_ATTACK } from "./corpus.js";

/*
 * What an operator's terminal is shown of hostile text, and what a forged dead-letter copy can
 * make a routine redrive do, through the real CLI on the emulators. The hostile text arrives
 * where it would in production: a receiver's reply stored as the attempt's outcome, a breaker's
 * last error, an invalid envelope's key name read back by redrive; the forged copy is sent
 * straight to the dead-letter queue, summary attribute and all, as `aws sqs send-message` would.
 */

const { sqs, documents } = testClients();

let world: CliWorld;
/** A dead-lettered event whose 503 reply carried every terminal attack. */
let hostile: Envelope;
/** A copy nobody but a forger wrote: no record, Ricochet's summary, the forger's URL. */
let forged: Envelope;
const HOSTILE_TARGET = "group:hostile";
const INVALID_ID = "bad-key-name";

const hostileOutcome = `HTTP 503: ${TERMINAL_ATTACK}`;

beforeAll(async () => {
  world = await createCliWorld("hostile-out");
  hostile = await deadLetterEvent(world.store, world.dlq, anEnvelope(), undefined, {
    outcomeMessage: hostileOutcome,
  });
  await breakHostileTarget();
  // An invalid envelope whose key name is the attack, as the orchestrator dead-letters it.
  await world.dlq.send({
    kind: DEAD_LETTER_KIND,
    version: DEAD_LETTER_VERSION,
    reason: "invalid_envelope",
    eventId: INVALID_ID,
    body: `{"eventId":"${INVALID_ID}","target":{"type":"http","url":"https://receiver.example/x"},"payload":1,${JSON.stringify(TERMINAL_ATTACK)}:1}`,
    attempts: 0,
    generation: 0,
    deadLetteredAt: new Date().toISOString(),
  });
  forged = anEnvelope({ target: { type: "http", url: "https://forger.example/collect" } });
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: world.deadLetterQueueUrl,
      MessageBody: JSON.stringify(forged),
      MessageAttributes: {
        [DEAD_LETTER_SUMMARY_ATTRIBUTE]: {
          DataType: "String",
          StringValue: JSON.stringify({
            kind: DEAD_LETTER_KIND,
            version: DEAD_LETTER_VERSION,
            reason: "exhausted",
            eventId: forged.eventId,
            attempts: 8,
            generation: 0,
            deadLetteredAt: "2030-01-01T03:00:00.000Z",
          }),
        },
      },
    }),
  );
});

/** The hostile target's breaker, its last error the attack, as instances would record it. */
const breakHostileTarget = async () => {
  await breakersOpenedFor(
    createDynamoTargetStateStore({ doc: documents, tableName: world.tableName }),
    HOSTILE_TARGET,
    hostileOutcome,
  );
};

/** Human output a terminal may show: nothing it would obey, no line that forges Ricochet's. */
const expectInert = (stdout: string) => {
  expect(stdout).not.toMatch(OBEYED_BY_TERMINALS);
  expect(showsForgedStatusLine(stdout)).toBe(false);
  // Still said, as escapes: the operator sees that the reply held an escape sequence.
  expect(stdout).toContain("\\x1b]52;c;");
};

describe("hostile text reaches the operator's terminal inert, and JSON exact", () => {
  it("ricochet status", async () => {
    const human = await runCli(["status", hostile.eventId, ...world.resources]);
    const json = await runCli(["status", hostile.eventId, "--json", ...world.resources]);

    expect(human.code).toBe(0);
    expectInert(human.stdout);
    expect((JSON.parse(json.stdout) as EventRecord).lastOutcome?.message).toBe(hostileOutcome);
  });

  it("ricochet events", async () => {
    const args = ["events", "--status", "dead_lettered", ...world.resources];
    const human = await runCli(args);
    const json = await runCli([...args, "--json"]);

    expect(human.code).toBe(0);
    expectInert(human.stdout);
    const records = JSON.parse(json.stdout) as EventRecord[];
    expect(records.find((r) => r.eventId === hostile.eventId)?.lastOutcome?.message).toBe(
      hostileOutcome,
    );
  });

  it("ricochet dlq list", async () => {
    const human = await runCli(["dlq", "list", ...world.resources]);
    const json = await runCli(["dlq", "list", "--json", ...world.resources]);

    expect(human.code).toBe(0);
    expectInert(human.stdout);
    const listed = JSON.parse(json.stdout) as DeadLetterListing[];
    expect(listed.find((m) => m.eventId === hostile.eventId)?.lastOutcome).toBe(hostileOutcome);
  });

  it("ricochet targets", async () => {
    const human = await runCli(["targets", ...world.resources]);
    const json = await runCli(["targets", "--json", ...world.resources]);

    expect(human.code).toBe(0);
    expectInert(human.stdout);
    const targets = JSON.parse(json.stdout) as TargetReport[];
    // Exactly as the breaker stores it (an excerpt of the reply), escape bytes and all.
    const lastError = targets.find((t) => t.target === HOSTILE_TARGET)?.lastError;
    expect(lastError).toBe(targetErrorExcerpt(hostileOutcome));
    expect(lastError).toContain("\u001b]52;c;");
  });

  it("ricochet redrive --dry-run, reporting an invalid envelope by its key names", async () => {
    const args = ["redrive", "--dry-run", "--event-id", INVALID_ID, ...world.resources];
    const human = await runCli(args);
    const json = await runCli([...args, "--json"]);

    expectInert(human.stdout);
    const report = JSON.parse(json.stdout) as RedriveReport;
    expect(report.failed[0]?.error).toContain(TERMINAL_ATTACK);
  });
});

describe("a dead-letter copy forged by whoever can send to the queue", () => {
  it("is listed as unverified, with why, by dlq list", async () => {
    const human = await runCli(["dlq", "list", "--reason", "exhausted", ...world.resources]);
    const json = await runCli(["dlq", "list", "--json", ...world.resources]);

    const listed = JSON.parse(json.stdout) as DeadLetterListing[];
    expect(listed.find((m) => m.eventId === forged.eventId)).toMatchObject({
      verified: false,
      unverified: expect.stringMatching(/no record of event/),
    });
    expect(listed.find((m) => m.eventId === hostile.eventId)?.verified).toBe(true);
    const line = human.stdout.split("\n").find((l) => l.includes(forged.eventId));
    expect(line).toMatch(/UNVERIFIED: Ricochet has no record/);
  });

  it("is not moved by a routine redrive, which says why it left it", async () => {
    const result = await runCli([
      "redrive",
      "--reason",
      "exhausted",
      "--event-id",
      forged.eventId,
      "--json",
      ...world.resources,
    ]);

    const report = JSON.parse(result.stdout) as RedriveReport;
    expect(report.moved).toEqual([]);
    expect(report.skipped).toEqual([
      expect.objectContaining({
        eventId: forged.eventId,
        reason: expect.stringMatching(/^unverified/),
      }),
    ]);
    expect(await world.store.get(forged.eventId)).toBeUndefined();
  });

  it("is moved only when the operator includes unverified copies", async () => {
    const args = ["redrive", "--event-id", forged.eventId, "--dry-run", "--json"];
    const result = await runCli([...args, "--include-unverified", ...world.resources]);

    const report = JSON.parse(result.stdout) as RedriveReport;
    expect(report.moved.map((m) => m.eventId)).toEqual([forged.eventId]);
  });
});
