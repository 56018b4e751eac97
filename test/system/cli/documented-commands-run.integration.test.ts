import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { localAwsEnv } from "../../../lib/adapters/aws-clients.js";
import { ENV } from "../../../lib/contract/environment.js";
import { EventStatus } from "../../../lib/core/status.js";
import { deadLetterEvent } from "../../support/dead-letter-fixture.js";
import { jsonExamples, type ShellLine, shellLines } from "../../support/document-examples.js";
import { localAws } from "../../support/local-aws.js";
import { useOrchestratorHarness } from "../../support/orchestrator-harness.js";
import { pollUntil } from "../../support/poll-until.js";
import { ROOT } from "../dev/dev-process.js";

/*
 * Every `npx ricochet` line of the README and docs/local-dev.md, run as written against the
 * emulators, with Ricochet's orchestrator working the queue, in the order the documents give
 * them: each must end as the text says (its exit code and a key line). A line with no
 * expectation below fails: a new documented command needs one. docs/deploy.md's lines need a
 * LocalStack running Lambda in Docker, which no machine here has; docs/benchmark-history.md's
 * one line times `--help`.
 *
 * `envelope.json` is the README's own envelope, its placeholder URL pointed at the test's
 * receiver. `npx ricochet` is run as written, from a reader's directory in which this checkout is installed
 * the way `npm i` installs a package (`node_modules/ricochet` and its `.bin/ricochet` link), so
 * npx resolves the command through the package's `bin` as it would for a user.
 */
const RUN_DOCUMENTS = ["README.md", "docs/local-dev.md"];

/**
 * The event ids the documents name: a reader's events, which the test submits first. Calls for
 * all but the delivered one fail, so they wait for a retry and can be cancelled; the delivered
 * one is what `replay` sends again.
 */
const READER_EVENTS = ["order-1042:shipped", "order-1043:shipped", "order-1044:shipped"];

/**
 * The waiting events' policy: ten minutes between attempts, undrawn. The default policy's full
 * jitter draws each delay from zero up, and its eight attempts could all fail within the minutes
 * the commands take on a busy machine: a CI run found order-1043 dead-lettered at its cancel.
 */
const WAITING_POLICY = { baseDelaySeconds: 600, jitter: "none" } as const;
const DELIVERED_EVENT = "order-1041:shipped";

interface Ending {
  readonly code: number;
  /** A line the output (stdout and stderr) must show. */
  readonly shows: RegExp;
  /** Runs until Ctrl-C: started, read until `shows`, then sent SIGINT. */
  readonly untilInterrupted?: boolean;
}

/** How each documented command ends, by the words after `npx ricochet`; first match wins. */
const ENDINGS: readonly (readonly [RegExp, Ending])[] = [
  [/^policy explain .*--json/, { code: 0, shows: /"maxAttempts": ?20/ }],
  [/^policy explain/, { code: 0, shows: /attempt/i }],
  [/^submit --file envelope\.json --in 15m/, { code: 0, shows: /order-1042:shipped/ }],
  [/^submit --file envelope\.json/, { code: 0, shows: /accepted/i }],
  [/^status /, { code: 0, shows: /order-1042:shipped/ }],
  [/^events --status dead_lettered --target group:tenant-42/, { code: 0, shows: /^No events\./m }],
  [/^events$/, { code: 0, shows: /order-104\d:shipped/ }],
  [/^events /, { code: 0, shows: /│ event|^No events\./m }],
  [/^dlq list --reason exhausted/, { code: 0, shows: /exhausted/ }],
  [/^dlq list --target/, { code: 0, shows: /no matching messages/ }],
  [/^dlq clean --dry-run/, { code: 0, shows: /would/ }],
  // Locally there is no operator function: the CLI says so rather than failing on DNS.
  [/^redrive --function/, { code: 2, shows: /function/ }],
  [/^redrive .*--dry-run/, { code: 0, shows: /dry run|would/i }],
  [/^redrive --all/, { code: 0, shows: /"moved"/ }],
  [/^targets/, { code: 0, shows: /Circuit breakers are off/ }],
  [
    /^console/,
    { code: 0, shows: /Ricochet console: http:\/\/127\.0\.0\.1:\d+/, untilInterrupted: true },
  ],
  [/^cancel .*--dry-run --json/, { code: 0, shows: /order-1044:shipped/ }],
  [/^cancel /, { code: 0, shows: /cancelled/ }],
  [/^replay /, { code: 0, shows: /order-1041:shipped/ }],
];

const h = useOrchestratorHarness("docs-run");
let cwd: string;
let env: NodeJS.ProcessEnv;
let run = 0;

/**
 * The README's own envelope, as a reader saves it as envelope.json, with the one change it asks
 * for: its target's URL, a placeholder host, pointed at the reader's receiver.
 */
const readmeEnvelopeAt = (target: unknown): Record<string, unknown> => {
  const [example] = jsonExamples().filter(
    (e) => e.source.startsWith("README.md:") && e.text.includes('"eventId"'),
  );
  if (example === undefined) throw new Error("the README shows no envelope");
  const envelope = JSON.parse(example.text) as Record<string, unknown> & { target: object };
  const url = (target as { url?: unknown } | undefined)?.url;
  if (envelope.eventId !== READER_EVENTS[0] || typeof url !== "string") {
    throw new Error(`the README's envelope is not ${READER_EVENTS[0]}'s, or no receiver URL`);
  }
  return { ...envelope, target: { ...envelope.target, url } };
};

/** The documented command as bash is given it. */
const asRun = (command: string): string =>
  command
    // A continued line is one command: bash -c would run each physical line on its own.
    .replace(/\s*\n\s*/g, " ")
    .replaceAll("<eventId>", READER_EVENTS[0] ?? "");

/** A reader's directory with this checkout installed in it, as `npm i <checkout>` links it. */
const installInto = async (dir: string): Promise<void> => {
  const modules = join(dir, "node_modules");
  await mkdir(join(modules, ".bin"), { recursive: true });
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({
      name: "docs-reader",
      private: true,
      dependencies: { ricochet: `file:${ROOT}` },
    }),
  );
  await symlink(ROOT, join(modules, "ricochet"));
  await symlink(join("..", "ricochet", "bin", "ricochet.js"), join(modules, ".bin", "ricochet"));
};

const lines = (): ShellLine[] =>
  shellLines().filter(
    (line) =>
      RUN_DOCUMENTS.some((document) => line.source.startsWith(`${document}:`)) &&
      /^npx ricochet /.test(line.command),
  );

const endingOf = (command: string): Ending | undefined =>
  ENDINGS.find(([pattern]) =>
    pattern.test(command.replace(/^npx ricochet /, "").replace(/\s+/g, " ")),
  )?.[1];

const bash = (command: string): Promise<{ code: number; out: string }> =>
  new Promise((resolve) => {
    execFile("bash", ["-c", command], { cwd, env, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), out: stdout + stderr }),
    );
  });

/**
 * Runs a command that serves until Ctrl-C: waits for `shows`, interrupts it, and gives code 0 if
 * the interrupt stopped it, 137 if it had to be killed.
 */
const interrupted = (command: string, shows: RegExp): Promise<{ code: number; out: string }> =>
  new Promise((resolve) => {
    // A group of its own, interrupted as a whole as a terminal's Ctrl-C does: npx runs the
    // command as its child, and a SIGINT to npx alone would leave that child serving.
    const child: ChildProcess = spawn("bash", ["-c", `exec ${command}`], {
      cwd,
      env,
      detached: true,
    });
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // The group has already gone.
      }
    };
    let out = "";
    let asked = false;
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      if (!asked && shows.test(out)) {
        asked = true;
        signalGroup("SIGINT");
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    const timer = setTimeout(() => signalGroup("SIGKILL"), 30_000);
    child.once("exit", (_code, signal) => {
      clearTimeout(timer);
      // npx reports its child's interrupt as 130 (or 1), the command itself as 0: any of them is
      // "Ctrl-C stopped it"; only the SIGKILL after 30 s says it did not stop.
      resolve({ code: signal === "SIGKILL" ? 137 : 0, out });
    });
  });

beforeAll(async () => {
  h.script((eventId) => ({ status: eventId === DELIVERED_EVENT ? 200 : 503 }));
  await h.startWorkers();
  const [first, ...others] = READER_EVENTS.map((id) => h.envelope(id, WAITING_POLICY));
  const delivered = h.envelope(DELIVERED_EVENT, {});
  cwd = await mkdtemp(join(tmpdir(), "ricochet-docs-"));
  await installInto(cwd);
  await writeFile(
    join(cwd, "envelope.json"),
    JSON.stringify(readmeEnvelopeAt(first?.target), null, 2),
  );
  await writeFile(join(cwd, "shipped.ndjson"), `${JSON.stringify(delivered)}\n`);
  await h.submit([...others, delivered]);
  await h.waitForStatus(DELIVERED_EVENT, EventStatus.DELIVERED, 20_000);
  await h.stopWorkers();
  await deadLetterEvent(h.store, h.ports.deadLetters);
  env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    USER: "docs-reader",
    // npx finds the command in node_modules/.bin; it must never reach for the registry.
    npm_config_cache: join(cwd, ".npm"),
    npm_config_offline: "true",
    npm_config_update_notifier: "false",
    ...localAwsEnv(localAws()),
    [ENV.INGRESS_QUEUE_URL]: h.queues.ingressQueueUrl,
    [ENV.INTERNAL_QUEUE_URL]: h.queues.internalQueueUrl,
    [ENV.DEAD_LETTER_QUEUE_URL]: h.queues.deadLetterQueueUrl,
    [ENV.TABLE_NAME]: h.tableName,
  };
}, 60_000);

// The harness stops its workers after each test: each command runs with them at work.
beforeEach(() => h.startWorkers());

afterAll(() => {
  process.stdout.write(`documented commands run: ${run} of ${lines().length}\n`);
});

describe("the README's and docs/local-dev.md's ricochet command lines, run", () => {
  it("are found", () => {
    expect(lines().length).toBeGreaterThanOrEqual(20);
  });

  it.each(lines().map((line) => [`${line.source}: ${line.command}`, line] as const))(
    "%s",
    async (_name, line) => {
      const ending = endingOf(line.command);
      expect(ending, `no expected ending for ${line.command}`).toBeDefined();
      if (ending === undefined) return;
      // A command about a reader's event needs its record: the orchestrator writes it first.
      for (const id of READER_EVENTS.filter((id) => line.command.includes(id))) {
        const record = await pollUntil(() => h.store.get(id), {
          timeoutMs: 20_000,
          intervalMs: 200,
        });
        expect(record, `no record for ${id}`).toBeDefined();
      }
      const command = asRun(line.command);
      const result = ending.untilInterrupted
        ? await interrupted(command, ending.shows)
        : await bash(command);
      run += 1;
      expect(result.code, result.out).toBe(ending.code);
      expect(result.out).toMatch(ending.shows);
    },
    60_000,
  );
});
