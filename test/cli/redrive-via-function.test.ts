import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINT_ENV } from "../../lib/adapters/aws-clients.js";
import { type RedriveReport, redrive } from "../../lib/redrive.js";
import type { RedriveRequestInput } from "../../lib/redrive-request.js";
import { closedPort } from "../adapters/targets/local-servers.js";
import { deadLetterEvent } from "../support/dead-letter-fixture.js";
import { createRedriveWorld, type RedriveWorld } from "../support/redrive-world.js";
import { expectOneLineError, runCli } from "./run-cli.js";

/*
 * `ricochet redrive --function` as an operator runs it. No Lambda emulator runs here, so a local
 * server plays the Invoke API and answers as the deployed function would: by running the real
 * redrive against the emulators (or, per function name, by failing in the ways a function can).
 */

const FUNCTION = "ricochet-redrive";

interface Invocation {
  readonly path: string;
  readonly request: Record<string, unknown>;
}

let world: RedriveWorld;
let lambda: Server;
let lambdaEnv: Record<string, string>;
const invocations: Invocation[] = [];

const answer = async (name: string, request: Record<string, unknown>) => {
  if (name === "throws") {
    return {
      headers: { "x-amz-function-error": "Unhandled" },
      body: { errorType: "StoreUnavailableError", errorMessage: "table is throttled" },
    };
  }
  if (name === "says-nothing") return { headers: {}, body: null };
  const report = await redrive(world.deps, request as RedriveRequestInput);
  return { headers: {}, body: report };
};

beforeAll(async () => {
  world = await createRedriveWorld("fn");
  lambda = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "";
      const name = decodeURIComponent(/\/functions\/([^/]+)\/invocations/.exec(path)?.[1] ?? "");
      const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      invocations.push({ path, request });
      void answer(name, request).then(({ headers, body }) => {
        res.writeHead(200, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(body));
      });
    });
  });
  await new Promise<void>((resolve) => lambda.listen(0, "127.0.0.1", resolve));
  lambdaEnv = {
    [ENDPOINT_ENV.LAMBDA]: `http://127.0.0.1:${(lambda.address() as AddressInfo).port}`,
  };
});

afterAll(async () => {
  lambda.closeAllConnections();
  await new Promise<void>((resolve) => lambda.close(() => resolve()));
});

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
    ["throws", "the redrive function throws failed: StoreUnavailableError: table is throttled"],
    [
      "says-nothing",
      "the redrive function says-nothing answered something that is not a redrive report: null",
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
      /^ricochet: could not invoke the redrive function ricochet-redrive: /,
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
