import { setTimeout as sleep } from "node:timers/promises";
import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { redrive } from "../../app/operator/redrive.js";
import { createRicochetClient, type RicochetClient } from "../../client/producer-client.js";
import { MetricName } from "../../contract/metric-names.js";
import { countOf } from "../../core/count-text.js";
import type { Envelope } from "../../core/envelope.js";
import { EventStatus } from "../../core/status.js";
import { inProcessRedriveDeps } from "../../runtime/in-process-redrive-deps.js";
import type { DevSession } from "../dev-session.js";
import type { DemoReceiver } from "./demo-receiver.js";
import { Behaviour, type DemoEvent } from "./demo-scenario.js";
import { type DemoSnapshot, takeSnapshot } from "./demo-snapshot.js";
import { type DemoSummary, summarize } from "./demo-summary.js";

/** Who the demo's redrives are recorded as. */
const DEMO_REDRIVER = "ricochet-dev-demo";
/** Healthy events submitted a second time once delivered, to show duplicate suppression. */
const DUPLICATES = 3;
const POLL_MS = 500;

export interface DemoRunOptions {
  readonly session: DevSession;
  readonly receiver: DemoReceiver;
  readonly events: readonly DemoEvent[];
  /** Called after every snapshot (the live view). */
  readonly onSnapshot?: (snapshot: DemoSnapshot, notes: readonly string[]) => void;
  /** Give up waiting after this long (the summary then shows what is pending). */
  readonly timeoutMs: number;
  /** True stops the run early (Ctrl-C). */
  readonly shouldStop?: () => boolean;
}

const envelopeFor = (event: DemoEvent, receiverUrl: string): Envelope => ({
  eventId: event.eventId,
  target: {
    type: "http",
    url: `${receiverUrl}/hooks/${encodeURIComponent(event.eventId)}`,
  },
  payload: { demo: event.behaviour, index: event.index },
});

/** One demo's progress, round to round. */
interface DemoRun {
  readonly options: DemoRunOptions;
  readonly client: RicochetClient;
  readonly notes: string[];
  /** The down-then-recovering events, redriven once dead-lettered. */
  readonly down: ReadonlySet<string>;
  readonly redriven: Set<string>;
  readonly duplicateCandidates: readonly DemoEvent[];
  duplicatesSent: boolean;
}

type StatusOf = (eventId: string) => EventStatus | undefined;

const submitEvents = async ({ options, client, notes }: DemoRun): Promise<void> => {
  const { session, receiver, events } = options;
  const { config, clients } = session;
  const report = await client.submitBatch(events.map((e) => envelopeFor(e, receiver.url)));
  if (report.rejected.length > 0) {
    throw new Error(`the demo's own events were refused: ${JSON.stringify(report.rejected[0])}`);
  }
  // Bypasses the client's validation on purpose: the orchestrator must reject it on its own.
  await clients.sqs.send(
    new SendMessageCommand({
      QueueUrl: config.ingressQueueUrl,
      MessageBody: JSON.stringify({
        eventId: `${events[0]?.eventId ?? "demo"}-malformed`,
        target: { type: "ftp" },
      }),
    }),
  );
  notes.push(`submitted ${events.length} events and 1 malformed message`);
};

/** Redrives the down events now dead-lettered; true when it moved any. */
const redriveRecovered = async (run: DemoRun, statusOf: StatusOf): Promise<boolean> => {
  const toRedrive = [...run.down].filter(
    (id) => !run.redriven.has(id) && statusOf(id) === EventStatus.DEAD_LETTERED,
  );
  if (toRedrive.length === 0) return false;
  const { ports, config } = run.options.session;
  const result = await redrive(inProcessRedriveDeps(ports, config), {
    eventIds: toRedrive,
    resetAttempts: true,
    ratePerSecond: 100,
    by: DEMO_REDRIVER,
    why: "demo: the receiver has recovered",
  });
  for (const moved of result.moved) run.redriven.add(moved.eventId);
  if (result.moved.length === 0) return false;
  run.notes.push(`redrove ${countOf(result.moved.length, "recovered event")} as ${DEMO_REDRIVER}`);
  return true;
};

/** Resubmits a few events once all of them are delivered; true when it sent them this round. */
const resubmitDelivered = async (run: DemoRun, statusOf: StatusOf): Promise<boolean> => {
  const candidates = run.duplicateCandidates;
  if (
    run.duplicatesSent ||
    !candidates.every((e) => statusOf(e.eventId) === EventStatus.DELIVERED)
  ) {
    return false;
  }
  run.duplicatesSent = true;
  await run.client.submitBatch(candidates.map((e) => envelopeFor(e, run.options.receiver.url)));
  run.notes.push(`resubmitted ${countOf(candidates.length, "delivered event")} as duplicates`);
  return true;
};

const allSettled = (eventIds: readonly string[], statusOf: StatusOf): boolean =>
  eventIds.every((id) => {
    const status = statusOf(id);
    return (
      status !== undefined &&
      status !== EventStatus.PENDING &&
      status !== EventStatus.IN_FLIGHT &&
      status !== EventStatus.RETRY_SCHEDULED
    );
  });

const snapshotOf = ({ config, clients }: DevSession): Promise<DemoSnapshot> =>
  takeSnapshot({
    documents: clients.documents,
    sqs: clients.sqs,
    tableName: config.tableName,
    ingressQueueUrl: config.ingressQueueUrl,
  });

/**
 * Plays the demo: submits the events (and one malformed message), redrives each
 * down-then-recovering event once it is dead-lettered, resubmits a few delivered events, and
 * waits until every event is terminal and the ingress queue is empty.
 */
export const runDemo = async (options: DemoRunOptions): Promise<DemoSummary> => {
  const { session, events } = options;
  const startedMs = Date.now();
  const run: DemoRun = {
    options,
    client: createRicochetClient({
      queueUrl: session.config.ingressQueueUrl,
      sqs: session.clients.sqs,
    }),
    notes: [],
    down: new Set(
      events.filter((e) => e.behaviour === Behaviour.DOWN_THEN_RECOVERING).map((e) => e.eventId),
    ),
    redriven: new Set(),
    duplicateCandidates: events
      .filter((e) => e.behaviour === Behaviour.HEALTHY)
      .slice(0, DUPLICATES),
    duplicatesSent: false,
  };
  await submitEvents(run);
  const eventIds = events.map((e) => e.eventId);
  const deadline = startedMs + options.timeoutMs;

  for (;;) {
    const snapshot = await snapshotOf(session);
    const statusOf = (id: string) => snapshot.records.get(id)?.status;
    // Anything this round sends (a redrive, the duplicates) postdates the snapshot, so the round
    // must not conclude from it: the next snapshot has to see those messages through.
    const redrove = await redriveRecovered(run, statusOf);
    const resubmitted = await resubmitDelivered(run, statusOf);
    const acted = redrove || resubmitted;
    options.onSnapshot?.(snapshot, run.notes);

    const redriveDone = [...run.down].every((id) => run.redriven.has(id));
    const done =
      !acted &&
      allSettled(eventIds, statusOf) &&
      redriveDone &&
      run.duplicatesSent &&
      snapshot.liveMessages === 0;
    if (done || Date.now() > deadline || options.shouldStop?.() === true) {
      return summarize({
        eventIds,
        snapshot,
        redriven: run.redriven.size,
        duplicatesSuppressed: session.metrics.get(MetricName.DUPLICATE_SUPPRESSED),
        malformed: 1,
        seconds: (Date.now() - startedMs) / 1000,
      });
    }
    await sleep(POLL_MS);
  }
};
