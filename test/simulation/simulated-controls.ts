import { cancelEvents } from "../../lib/app/operator/cancel.js";
import { replayEvents } from "../../lib/app/operator/replay.js";
import type { RetryPolicy } from "../../lib/core/policy.js";
import type { EventStore, IngressQueue } from "../../lib/core/ports.js";
import { randomInt } from "../../lib/core/random.js";
import { EventStatus } from "../../lib/core/status.js";
import { streamFor } from "../support/random-streams.js";
import { type Process, untilCrash } from "./faults.js";
import { OPERATOR } from "./simulated-operator.js";

/*
 * An operator's controls during the run: some events are cancelled while they wait (for their
 * schedule, a retry, or a first attempt) or while an attempt is in flight (refused, then asked
 * again, as a person would), and some delivered events are replayed. Each action runs in a
 * process of its own, through the same faulty ports as the workers.
 */

/** Share of events an operator tries to cancel, and share of delivered events it replays. */
const CANCEL_SHARE = 0.12;
const REPLAY_SHARE = 0.12;
/** How often the operator asks again after a refusal or a failure, and how long it waits. */
const MAX_TRIES = 4;
const RETRY_AFTER_MS = 15_000;
/** How long the operator watches an event it means to replay for its delivery. */
const REPLAY_WATCH_MS = 600_000;

/** Share of replays the operator thinks better of at once, cancelling the replayed event. */
const CANCEL_AFTER_REPLAY_SHARE = 0.3;

/** What the operator means to do to one event, and when it first looks. */
export interface PlannedControl {
  readonly eventId: string;
  readonly action: "cancel" | "replay";
  readonly atMs: number;
  /** For a replay: cancel the event as soon as the replay is recorded (it is then pending). */
  readonly thenCancel?: boolean;
}

/**
 * Draws the run's controls from streams of their own (so the other draws of a seed stay as they
 * were): a cancel soon after submission, so it meets events scheduled, waiting or in flight; a
 * replay looked for a little later, once the event may be delivered.
 */
export const drawControls = (
  seed: number,
  events: readonly { readonly eventId: string; readonly submitAtMs: number }[],
): PlannedControl[] =>
  events.flatMap(({ eventId, submitAtMs }): PlannedControl[] => {
    const random = streamFor(seed, "control", eventId);
    const draw = random();
    if (draw < CANCEL_SHARE)
      return [{ eventId, action: "cancel", atMs: submitAtMs + randomInt(random, 0, 60_000) }];
    if (draw < CANCEL_SHARE + REPLAY_SHARE) {
      const atMs = submitAtMs + randomInt(random, 5_000, 90_000);
      return [
        { eventId, action: "replay", atMs, thenCancel: random() < CANCEL_AFTER_REPLAY_SHARE },
      ];
    }
    return [];
  });

/** A process for one try, with the ports it reaches the deployment through. */
interface ControlRun {
  readonly process: Process & { readonly stopped: Promise<void> };
  readonly ports: { readonly store: EventStore; readonly ingress: IngressQueue };
}

export interface SimulatedControlsOptions {
  readonly startRun: (name: string) => ControlRun;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly defaultPolicy: RetryPolicy;
  /** The exact body the producer sent, by event id: what a replay sends again. */
  readonly bodyOf: (eventId: string) => string;
  /** How the operator reads a record (`ricochet status`), outside any run's faults. */
  readonly store: EventStore;
  /** Told of every refusal a cancel met, with its reason. */
  readonly onCancelRefused: (reason: string) => void;
}

/** Runs one try in its own process; undefined when the process crashed or the call threw. */
const tryIn = <T>(
  name: string,
  options: SimulatedControlsOptions,
  work: (run: ControlRun) => Promise<T>,
): Promise<T | undefined> => untilCrash(options.startRun(name), work);

/** Cancels the event, asking again after a refusal (an attempt in flight) or a failure. */
const cancel = async (control: PlannedControl, options: SimulatedControlsOptions) => {
  for (let tries = 1; tries <= MAX_TRIES; tries += 1) {
    const report = await tryIn(
      `cancel.${control.eventId}.${tries}`,
      options,
      ({ process, ports }) =>
        cancelEvents(
          { store: ports.store, clock: process.clock, retentionSeconds: 86_400 },
          { eventIds: [control.eventId], by: OPERATOR, reason: "simulation" },
        ),
    );
    if (report !== undefined && report.cancelled.length > 0) return;
    for (const refused of report?.refused ?? []) options.onCancelRefused(refused.reason);
    const status = (await options.store.get(control.eventId))?.status;
    // Finished, or cancelled by a try whose answer was lost: nothing more to ask.
    if (status !== undefined && status !== EventStatus.IN_FLIGHT && report?.failed.length === 0)
      return;
    await options.sleep(RETRY_AFTER_MS);
  }
};

/** Waits for the event's delivery, then replays it once (asking again after a failure). */
const replay = async (control: PlannedControl, options: SimulatedControlsOptions) => {
  const until = control.atMs + REPLAY_WATCH_MS;
  let tries = 0;
  while (options.now() < until && tries < MAX_TRIES) {
    const record = await options.store.get(control.eventId);
    if (record?.status === EventStatus.DELIVERED) {
      tries += 1;
      const report = await tryIn(
        `replay.${control.eventId}.${tries}`,
        options,
        ({ process, ports }) =>
          replayEvents(
            {
              store: ports.store,
              ingressQueue: ports.ingress,
              clock: process.clock,
              defaultPolicy: options.defaultPolicy,
            },
            {
              eventIds: [control.eventId],
              envelopes: [options.bodyOf(control.eventId)],
              by: OPERATOR,
              reason: "simulation",
            },
          ),
      );
      if (report !== undefined && report.failed.length === 0) {
        if (control.thenCancel === true) await cancel(control, options);
        return;
      }
    }
    await options.sleep(RETRY_AFTER_MS);
  }
};

/** Carries out every planned control; resolves when the last is done or given up. */
export const runControls = async (
  controls: readonly PlannedControl[],
  options: SimulatedControlsOptions,
): Promise<void> => {
  await Promise.all(
    controls.map(async (control) => {
      await options.sleep(Math.max(0, control.atMs - options.now()));
      await (control.action === "cancel" ? cancel(control, options) : replay(control, options));
    }),
  );
};
