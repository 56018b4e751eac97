import type { DeadLetterMessage } from "../../core/dead-letter.js";
import { errorMessage } from "../../core/errors.js";
import type { EventRecord, RedriveEntry } from "../../core/record.js";
import { traceContextFrom } from "../../core/trace-context.js";
import { releaseAll, type ScannedMessage } from "./dead-letter-scan.js";
import type { AuditStamper } from "./operator-action.js";
import { redriveBudget } from "./redrive-budget.js";
import type { RedriveDeps } from "./redrive-deps.js";
import { type MovedEvent, type RedriveRow, SkipReason } from "./redrive-report.js";
import type { RedriveRequest } from "./redrive-request.js";
import { envelopeOf, judgeCopy, type Verdict } from "./redrive-verdict.js";

/*
 * One dead-letter message's move (send, record, delete: the order and why it is safe are at the
 * top of lib/app/operator/redrive.ts), as a function from the message to its report row. Every message
 * not moved or deleted is given back to the queue (made visible again), except in a dry run,
 * which leaves visibility to the run.
 */

/** What every move of one run shares. */
export interface RedriveRun {
  readonly deps: RedriveDeps;
  readonly request: RedriveRequest;
  /** Event ids moved (or found already moved) in this run: later copies are duplicates. */
  readonly handled: Set<string>;
  readonly stamps: AuditStamper;
  /** Waits until the run's rate allows the next move. */
  readonly pace: () => Promise<void>;
}

/** Waits so that moves start no faster than `ratePerSecond`, counted from the pacer's creation. */
export const movePacer = (
  deps: Pick<RedriveDeps, "clock" | "sleep">,
  ratePerSecond: number,
): (() => Promise<void>) => {
  const intervalMs = 1000 / ratePerSecond;
  const startedMs = deps.clock();
  let moves = 0;
  return async () => {
    const waitMs = startedMs + moves * intervalMs - deps.clock();
    if (waitMs > 0) await deps.sleep(waitMs);
    moves += 1;
  };
};

/** Gives the message back to the queue (not in a dry run) and answers `row`. */
const leave = async (
  run: RedriveRun,
  message: ScannedMessage,
  row: RedriveRow,
): Promise<RedriveRow> => {
  if (!run.request.dryRun) await releaseAll(run.deps.deadLetterQueue, [message]);
  return row;
};

/** Deletes the obsolete copy (not in a dry run) and answers the skip. */
const discard = async (
  run: RedriveRun,
  message: ScannedMessage,
  eventId: string | undefined,
  reason: string,
): Promise<RedriveRow> => {
  if (!run.request.dryRun) await run.deps.deadLetterQueue.delete(message.received.receiptHandle);
  return { kind: "skipped", message: { eventId, messageId: message.received.messageId, reason } };
};

const verdictOf = async (run: RedriveRun, dl: DeadLetterMessage): Promise<Verdict> => {
  const read = envelopeOf(dl);
  if (!read.ok) return read.verdict;
  if (run.handled.has(read.envelope.eventId))
    return { kind: "delete", reason: SkipReason.DUPLICATE };
  return judgeCopy(run.deps.store, dl, read.envelope, {
    nowMs: run.deps.clock(),
    includeUnverified: run.request.includeUnverified,
  });
};

/** The redrive's write refused: the move it was writing, and the record as it is now. */
interface RedriveConflict {
  readonly moved: MovedEvent;
  readonly now: EventRecord | undefined;
}

/**
 * The redrive's write met a record that changed since it was read. If it is at the sent
 * generation or beyond, some run sent a message for it before recording: the event is live and
 * this copy is done with. Anything else leaves the copy, reported failed.
 */
const settleConflict = (
  run: RedriveRun,
  message: ScannedMessage,
  dl: DeadLetterMessage,
  { moved, now }: RedriveConflict,
): Promise<RedriveRow> => {
  if (now !== undefined && now.generation >= moved.generation) {
    run.handled.add(moved.eventId);
    return discard(run, message, dl.eventId, SkipReason.ALREADY_REDRIVEN);
  }
  const error = `the record changed during the redrive (now ${now?.status ?? "missing"}); try again`;
  const messageId = message.received.messageId;
  return leave(run, message, {
    kind: "failed",
    message: { eventId: dl.eventId, messageId, error },
  });
};

/** Sends, records, then deletes the copy: the move proper, for a copy judged movable. */
const moveCopy = async (
  run: RedriveRun,
  message: ScannedMessage,
  dl: DeadLetterMessage,
  { record, envelope }: Extract<Verdict, { kind: "move" }>,
): Promise<RedriveRow> => {
  const { deps, request } = run;
  const messageId = message.received.messageId;
  const generation = record.generation + 1;
  const attemptBudget = redriveBudget(record, envelope, request, deps);
  const event: MovedEvent = { eventId: envelope.eventId, generation, attemptBudget };
  if (request.dryRun) {
    run.handled.add(envelope.eventId);
    return { kind: "moved", event };
  }

  await run.pace();
  const { nowMs, stamp } = await run.stamps.now(request.by);
  const audit: RedriveEntry = {
    ...stamp,
    reason: request.why ?? `redrive of ${dl.reason}`,
    previousStatus: record.status,
    previousAttempts: record.attempts,
    attemptBudget,
  };
  // The producer's body as it arrived: re-serialising could change it (and grow it past
  // SQS's limit: `1e20` becomes 21 digits).
  const trace = traceContextFrom({ traceparent: dl.traceparent, tracestate: dl.tracestate });
  await deps.ingressQueue.send(dl.body, { generation, trace }, 0);
  const recorded = await deps.store.recordRedrive({
    eventId: envelope.eventId,
    generation,
    attemptBudget,
    audit,
    nowMs,
  });
  if (recorded.kind === "conflict") {
    return settleConflict(run, message, dl, { moved: event, now: recorded.record });
  }
  run.handled.add(envelope.eventId);
  try {
    await deps.deadLetterQueue.delete(message.received.receiptHandle);
    return { kind: "moved", event };
  } catch (error) {
    // Moved and recorded: the leftover copy is obsolete and the next redrive deletes it.
    const why = `moved, but the dead-letter copy was not deleted: ${errorMessage(error)}`;
    return { kind: "moved", event, leftover: { eventId: dl.eventId, messageId, error: why } };
  }
};

/**
 * Redrives one selected dead-letter message and answers its report row: moved, skipped with
 * the reason, or failed with the error. Never throws for an AWS call's failure: that is a row.
 */
export const moveMessage = async (
  run: RedriveRun,
  message: ScannedMessage,
): Promise<RedriveRow> => {
  const messageId = message.received.messageId;
  if (run.deps.shouldStop?.() === true) {
    return leave(run, message, {
      kind: "skipped",
      message: { messageId, reason: SkipReason.STOPPED },
    });
  }
  if (!message.parsed.ok) {
    return leave(run, message, {
      kind: "failed",
      message: { messageId, error: message.parsed.error },
    });
  }
  const dl = message.parsed.message;
  const eventId = dl.eventId;
  try {
    const verdict = await verdictOf(run, dl);
    switch (verdict.kind) {
      case "fail":
        return await leave(run, message, {
          kind: "failed",
          message: { eventId, messageId, error: verdict.error },
        });
      case "skip":
        return await leave(run, message, {
          kind: "skipped",
          message: { eventId, messageId, reason: verdict.reason },
        });
      case "delete":
        return await discard(run, message, eventId, verdict.reason);
      case "move":
        return await moveCopy(run, message, dl, verdict);
    }
  } catch (error) {
    return leave(run, message, {
      kind: "failed",
      message: { eventId, messageId, error: errorMessage(error) },
    });
  }
};
