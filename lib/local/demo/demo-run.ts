import { setTimeout as sleep } from "node:timers/promises";
import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { redrive } from "../../app/operator/redrive.js";
import { createRicochetClient } from "../../client/producer-client.js";
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

/**
 * Plays the demo: submits the events (and one malformed message), redrives each
 * down-then-recovering event once it is dead-lettered, resubmits a few delivered events, and
 * waits until every event is terminal and the ingress queue is empty.
 */
export const runDemo = async (options: DemoRunOptions): Promise<DemoSummary> => {
  const { session, receiver, events } = options;
  const { config, clients, ports } = session;
  const startedMs = Date.now();
  const notes: string[] = [];
  const client = createRicochetClient({ queueUrl: config.ingressQueueUrl, sqs: clients.sqs });
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

  const down = new Set(
    events.filter((e) => e.behaviour === Behaviour.DOWN_THEN_RECOVERING).map((e) => e.eventId),
  );
  const redriven = new Set<string>();
  const duplicateCandidates = events
    .filter((e) => e.behaviour === Behaviour.HEALTHY)
    .slice(0, DUPLICATES);
  let duplicatesSent = false;
  const eventIds = events.map((e) => e.eventId);
  const deadline = startedMs + options.timeoutMs;

  for (;;) {
    const snapshot = await takeSnapshot({
      documents: clients.documents,
      sqs: clients.sqs,
      tableName: config.tableName,
      ingressQueueUrl: config.ingressQueueUrl,
    });
    const statusOf = (id: string) => snapshot.records.get(id)?.status;
    // Anything this round sends (a redrive, the duplicates) postdates the snapshot, so the round
    // must not conclude from it: the next snapshot has to see those messages through.
    let acted = false;

    const toRedrive = [...down].filter(
      (id) => !redriven.has(id) && statusOf(id) === EventStatus.DEAD_LETTERED,
    );
    if (toRedrive.length > 0) {
      const result = await redrive(inProcessRedriveDeps(ports, config), {
        eventIds: toRedrive,
        resetAttempts: true,
        ratePerSecond: 100,
        by: DEMO_REDRIVER,
        why: "demo: the receiver has recovered",
      });
      for (const moved of result.moved) redriven.add(moved.eventId);
      if (result.moved.length > 0) {
        acted = true;
        notes.push(
          `redrove ${countOf(result.moved.length, "recovered event")} as ${DEMO_REDRIVER}`,
        );
      }
    }
    if (
      !duplicatesSent &&
      duplicateCandidates.every((e) => statusOf(e.eventId) === EventStatus.DELIVERED)
    ) {
      duplicatesSent = true;
      acted = true;
      await client.submitBatch(duplicateCandidates.map((e) => envelopeFor(e, receiver.url)));
      notes.push(
        `resubmitted ${countOf(duplicateCandidates.length, "delivered event")} as duplicates`,
      );
    }
    options.onSnapshot?.(snapshot, notes);

    const settled = eventIds.every((id) => {
      const status = statusOf(id);
      return (
        status !== undefined &&
        status !== EventStatus.PENDING &&
        status !== EventStatus.IN_FLIGHT &&
        status !== EventStatus.RETRY_SCHEDULED
      );
    });
    const redriveDone = [...down].every((id) => redriven.has(id));
    const done = !acted && settled && redriveDone && duplicatesSent && snapshot.liveMessages === 0;
    if (done || Date.now() > deadline || options.shouldStop?.() === true) {
      return summarize({
        eventIds,
        snapshot,
        redriven: redriven.size,
        duplicatesSuppressed: session.metrics.get(MetricName.DUPLICATE_SUPPRESSED),
        malformed: 1,
        seconds: (Date.now() - startedMs) / 1000,
      });
    }
    await sleep(POLL_MS);
  }
};
