import { MAX_SQS_VISIBILITY_TIMEOUT_SECONDS } from "../../contract/aws-limits.js";
import {
  DEFAULT_SCAN_VISIBILITY_SECONDS,
  type DeadLetterFilter,
  releaseAll,
  type ScannedMessage,
  scanDeadLetters,
} from "./dead-letter-scan.js";
import { auditStamper } from "./operator-action.js";
import { moveMessage, movePacer, type RedriveRun } from "./redrive-move.js";
import { addRow, type RedriveReport } from "./redrive-report.js";
import {
  parseRedriveRequest,
  type RedriveRequest,
  type RedriveRequestInput,
} from "./redrive-request.js";

export {
  type RedriveReport,
  SkipReason,
} from "./redrive-report.js";

import type { RedriveDeps } from "./redrive-deps.js";

/*
 * Redrive: dead-letter queue → internal queue (where the `IngressQueue` port sends), with an
 * audit entry on the record.
 *
 * Order of the three steps, per message, and why nothing is lost or delivered twice if the
 * process dies between any two of them:
 *
 *   1. SEND the envelope to the internal queue, carrying generation g+1 (g = record's generation).
 *   2. RECORD the redrive (conditional on the record still being terminal at generation g):
 *      the record moves to `pending` at g+1 with the new budget and the audit entry.
 *   3. DELETE the dead-letter copy.
 *
 * - Killed after 1: the record is still terminal at g, the DLQ copy is still there. The sent
 *   message is "ahead" of the record, so the orchestrator does not act on it (it waits, and the
 *   queue's native maxReceiveCount eventually parks it). The next redrive sends another g+1 copy
 *   and records g+1: both copies now carry the generation the record names, and the
 *   orchestrator's claim lets only one of them attempt at a time; once an attempt finishes, the
 *   record moves on (terminal, or g+2 for a retry) and the other copy is a duplicate or stale.
 *   At most one generation is ever live.
 * - Killed after 2: the record is live (not terminal) at g+1 and a message for it exists (sent
 *   in step 1, before the record said so). The next redrive reads the record, sees it has moved
 *   past the dead-letter copy's generation, and only deletes that copy ("already redriven").
 * - recordRedrive answers `conflict` (the record changed between our read and our write: a
 *   concurrent or interrupted run recorded this generation or a later one): if the record is at
 *   g+1 or beyond, some run sent a message for it before recording, so the event is live; the
 *   copy we just sent carries a generation the record has reached or passed, which the
 *   generation check turns into a duplicate or a stale message. The DLQ copy is then done with:
 *   delete it. If the record is anything else, leave the DLQ copy and report a failure.
 *
 * The DLQ copy is only ever deleted once a record at a later generation exists, i.e. once a
 * live message for the event was sent; that is why a redrive can never lose an event.
 */

/** Seconds selected messages stay hidden while a run moves them: the run's length, padded. */
const holdSeconds = (count: number, ratePerSecond: number): number =>
  Math.min(MAX_SQS_VISIBILITY_TIMEOUT_SECONDS, Math.ceil(count / ratePerSecond) + 60);

const filterOf = (request: RedriveRequest): DeadLetterFilter => ({
  eventIds: request.eventIds,
  reasons: request.reasons,
  sinceMs: request.since === undefined ? undefined : Date.parse(request.since),
  untilMs: request.until === undefined ? undefined : Date.parse(request.until),
  targetKey: request.target,
});

/**
 * Scans the dead-letter queue for the messages the request selects and gives the others back.
 * A dry run gives the selected back too; a real run keeps them hidden for the whole run.
 */
const selectMessages = async (
  deps: RedriveDeps,
  request: RedriveRequest,
): Promise<readonly ScannedMessage[]> => {
  const dlq = deps.deadLetterQueue;
  const { matched, unmatched } = await scanDeadLetters(dlq, {
    filter: filterOf(request),
    limit: request.limit,
    visibilitySeconds: deps.scanVisibilitySeconds ?? DEFAULT_SCAN_VISIBILITY_SECONDS,
    onPage: (scanned) => deps.onProgress?.({ phase: "scan", done: scanned }),
  });
  await releaseAll(dlq, unmatched);
  if (request.dryRun) {
    await releaseAll(dlq, matched);
  } else {
    const hold = holdSeconds(matched.length, request.ratePerSecond);
    await Promise.allSettled(
      matched.map((m) => dlq.changeVisibility(m.received.receiptHandle, hold)),
    );
  }
  return matched;
};

/**
 * Moves dead-lettered events back to the internal queue: selects messages by event id, reason
 * and age, grants a budget, sends first, records the redrive on the event's record, then
 * deletes the dead-letter copy. With `dryRun` it reads the same things and reports what it
 * would move, changing nothing. Messages it cannot replay stay in the queue and are reported.
 *
 * @throws InvalidRequestError when the request is invalid (nothing is touched).
 */
export const redrive = async (
  deps: RedriveDeps,
  input: RedriveRequestInput,
): Promise<RedriveReport> => {
  const request = parseRedriveRequest(input);
  const report: RedriveReport = { dryRun: request.dryRun, moved: [], skipped: [], failed: [] };
  const selected = await selectMessages(deps, request);
  const run: RedriveRun = {
    deps,
    request,
    handled: new Set<string>(),
    stamps: auditStamper(deps.callerIdentity, deps.clock),
    pace: movePacer(deps, request.ratePerSecond),
  };
  for (const [index, message] of selected.entries()) {
    deps.onProgress?.({ phase: "move", done: index, total: selected.length });
    addRow(report, await moveMessage(run, message));
  }
  deps.onProgress?.({ phase: "move", done: selected.length, total: selected.length });
  return report;
};
