import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINT_ENV } from "../../lib/adapters/aws-clients.js";
import type { RedriveReport } from "../../lib/app/operator/redrive.js";
import { closedPort } from "../adapters/targets/local-servers.js";
import { deadLetterEvent } from "../support/dead-letter-fixture.js";
import {
  type FakeOperatorFunction,
  type Invocation,
  startFakeOperatorFunction,
} from "../support/fake-operator-function.js";
import { createRedriveWorld, type RedriveWorld } from "../support/redrive-world.js";
import { expectOneLineError, runCli } from "./run-cli.js";

/* `ricochet redrive --function` as an operator runs it, against a stand-in for the function. */

const FUNCTION = "ricochet-redrive";

let world: RedriveWorld;
let fn: FakeOperatorFunction;
let lambdaEnv: Record<string, string>;
let invocations: Invocation[];

beforeAll(async () => {
  world = await createRedriveWorld("fn");
  fn = await startFakeOperatorFunction({ ...world.deps, retentionSeconds: 3_600 });
  lambdaEnv = fn.env;
  invocations = fn.invocations;
});

afterAll(() => fn.close());

describe("ricochet redrive --function", () => {
  it("runs the redrive in the named function and prints its report", async () => {
    const { store, dlq } = world;
    const dead = await deadLetterEvent(store, dlq);

    const result = await runCli(
      ["redrive", "--function", FUNCTION, "--event-id", dead.eventId, "--why", "fixed", "--json"],
      { env: lambdaEnv },
    );

    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as RedriveReport;
    expect(report.moved.map((m) => m.eventId)).toEqual([dead.eventId]);
    expect(invocations.at(-1)).toEqual({
      path: `/2015-03-31/functions/${FUNCTION}/invocations`,
      request: { eventIds: [dead.eventId], dryRun: false, by: "cli-test", why: "fixed" },
    });
    const record = await store.get(dead.eventId);
    expect(record?.status).toBe("pending");
    expect(record?.redrives[0]).toMatchObject({ by: "cli-test", reason: "fixed" });
  });

  it.each([
    ["throws", "the operator function throws failed: StoreUnavailableError: table is throttled"],
    [
      "says-nothing",
      "the operator function says-nothing answered something that is not a redrive report: null",
    ],
  ])("reports a function that %s as one line and exit 1", async (name, message) => {
    const result = await runCli(["redrive", "--function", name, "--reason", "exhausted"], {
      env: lambdaEnv,
    });
    expect(result.code).toBe(1);
    expectOneLineError(result.stderr);
    expect(result.stderr.trim()).toBe(`ricochet: ${message}`);
  });

  it("reports a function it cannot reach as one line and exit 1", async () => {
    const port = await closedPort();
    const result = await runCli(["redrive", "--function", FUNCTION, "--reason", "exhausted"], {
      env: { [ENDPOINT_ENV.LAMBDA]: `http://127.0.0.1:${port}` },
    });
    expect(result.code).toBe(1);
    expectOneLineError(result.stderr);
    expect(result.stderr).toMatch(
      /^ricochet: could not invoke the operator function ricochet-redrive: /,
    );
  });

  it("refuses an invalid request before invoking anything", async () => {
    const before = invocations.length;
    const result = await runCli(
      [
        "redrive",
        "--function",
        FUNCTION,
        "--since",
        "2026-01-02T00:00:00Z",
        "--until",
        "2026-01-01T00:00:00Z",
      ],
      { env: lambdaEnv },
    );
    expect(result.code).toBe(2);
    expectOneLineError(result.stderr);
    expect(result.stderr).toContain("until: must not be before since");
    expect(invocations).toHaveLength(before);
  });
});
