import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINT_ENV } from "../../lib/adapters/aws-clients.js";
import { NO_STS_ENDPOINT } from "../../lib/adapters/sts-caller-identity.js";
import type { RedriveReport } from "../../lib/app/operator/redrive.js";
import { LOCAL_CREDENTIALS } from "../../lib/contract/local-identity.js";
import { CallerSource, type EventRecord } from "../../lib/core/record.js";
import { deadLetterEvent } from "../support/dead-letter-fixture.js";
import { createRedriveWorld, type RedriveWorld } from "../support/redrive-world.js";
import { type StsStandIn, startStsStandIn } from "../support/sts-stand-in.js";
import { resourceFlags } from "./cli-world.js";
import { expectOneLineError, runCli, runCliAtTerminal } from "./run-cli.js";

/*
 * `ricochet redrive` as an operator runs it, against the emulators, with an STS stand-in for
 * the caller: what the audit entry says about who acted, and the `--all` rule for a redrive with
 * no filter. The CLI's stdin is a pipe, as in a script, except where a pseudo-terminal plays an
 * operator at a terminal.
 */

const ANA = {
  arn: "arn:aws:iam::123456789012:user/ana",
  account: "123456789012",
  userId: "AIDAEXAMPLEANA",
};

let sts: StsStandIn;
let stsEnv: Record<string, string>;

const recordOf = async (world: RedriveWorld, eventId: string): Promise<EventRecord> => {
  const record = await world.store.get(eventId);
  if (record === undefined) throw new Error(`no record for ${eventId}`);
  return record;
};

beforeAll(async () => {
  // The CLI signs with the local key: the stand-in says that key is Ana's, as STS would.
  sts = await startStsStandIn({ [LOCAL_CREDENTIALS.accessKeyId]: ANA });
  stsEnv = { [ENDPOINT_ENV.STS]: sts.url };
});

afterAll(() => sts.close());

describe("ricochet redrive records who acted", () => {
  let world: RedriveWorld;

  beforeAll(async () => {
    world = await createRedriveWorld("cli-caller");
  });

  it("records the self-declared --by beside the caller STS names for the CLI's credentials", async () => {
    const dead = await deadLetterEvent(world.store, world.dlq);
    const result = await runCli(
      [
        "redrive",
        "--event-id",
        dead.eventId,
        "--by",
        "someone-else",
        "--why",
        "fixed",
        "--json",
        ...resourceFlags(world),
      ],
      { env: stsEnv },
    );
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as RedriveReport).moved.map((m) => m.eventId)).toEqual([
      dead.eventId,
    ]);
    const [entry] = (await recordOf(world, dead.eventId)).redrives;
    expect(entry).toMatchObject({
      by: "someone-else",
      reason: "fixed",
      caller: { source: CallerSource.OPERATOR, ...ANA },
    });
    expect(sts.accessKeys.at(-1)).toBe(LOCAL_CREDENTIALS.accessKeyId);

    const shown = await runCli(["status", dead.eventId, "--table", world.tableName], {
      env: stsEnv,
    });
    expect(shown.stdout).toContain("someone-else");
    expect(shown.stdout).toContain(`${ANA.arn} (operator's credentials)`);
  });

  it("records an unverified caller, saying why, against the emulators alone", async () => {
    const dead = await deadLetterEvent(world.store, world.dlq);
    const asked = sts.accessKeys.length;
    const result = await runCli([
      "redrive",
      "--event-id",
      dead.eventId,
      "--json",
      ...resourceFlags(world),
    ]);
    expect(result.code).toBe(0);
    const [entry] = (await recordOf(world, dead.eventId)).redrives;
    expect(entry).toMatchObject({
      by: "cli-test",
      caller: {
        source: CallerSource.OPERATOR,
        unverified: NO_STS_ENDPOINT,
      },
    });
    expect(sts.accessKeys).toHaveLength(asked);
  });
});

describe("ricochet redrive with no filter", () => {
  let world: RedriveWorld;
  let args: string[];
  let deadIds: string[];

  beforeAll(async () => {
    world = await createRedriveWorld("cli-all");
    args = resourceFlags(world);
    deadIds = [
      (await deadLetterEvent(world.store, world.dlq)).eventId,
      (await deadLetterEvent(world.store, world.dlq)).eventId,
    ].sort();
  });

  it.each([
    ["a script", []],
    ["a --json run", ["--json"]],
  ])("is refused in %s without --all, with exit 2 and nothing moved", async (_label, extra) => {
    const result = await runCli(["redrive", ...extra, ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expectOneLineError(result.stderr);
    expect(result.stderr).toContain("no filter given");
    expect(result.stderr).toContain("--all");
    for (const id of deadIds) expect((await recordOf(world, id)).status).toBe("dead_lettered");
  });

  it("refuses --all beside a filter, which would say two different things", async () => {
    const result = await runCli(["redrive", "--all", "--event-id", deadIds[0] ?? "", ...args]);
    expect(result.code).toBe(2);
    expectOneLineError(result.stderr);
    expect(result.stderr).toMatch(/--all.*--event-id|--event-id.*--all/);
  });

  it("runs as a dry run without --all: it moves nothing anyway", async () => {
    const result = await runCli(["redrive", "--dry-run", "--json", ...args]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as RedriveReport;
    expect(report.moved.map((m) => m.eventId).sort()).toEqual(deadIds);
  });

  it("asks at a terminal, and moves nothing on no", async () => {
    const result = await runCliAtTerminal(["redrive", ...args], "n\n");
    expect(result.code).toBe(2);
    expect(result.stdout).toContain("Continue? [y/N]");
    expect(result.stdout).toContain("not confirmed; nothing was moved");
    for (const id of deadIds) expect((await recordOf(world, id)).status).toBe("dead_lettered");
  });

  it("asks at a terminal, and moves every dead-lettered event on yes", async () => {
    const result = await runCliAtTerminal(["redrive", ...args], "y\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Continue? [y/N]");
    for (const id of deadIds) expect((await recordOf(world, id)).status).toBe("pending");
  });

  it("moves every dead-lettered event with --all, asking nothing", async () => {
    const fresh = [
      (await deadLetterEvent(world.store, world.dlq)).eventId,
      (await deadLetterEvent(world.store, world.dlq)).eventId,
    ].sort();
    const result = await runCli(["redrive", "--all", "--json", ...args]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as RedriveReport;
    expect(report.moved.map((m) => m.eventId).sort()).toEqual(fresh);
    for (const id of fresh) expect((await recordOf(world, id)).status).toBe("pending");
  });
});
