import { isDeepStrictEqual } from "node:util";
import type { CleanReport } from "../../lib/app/operator/dead-letter-clean.js";
import {
  type DeadLetterListing,
  readDeadLetter,
  toListing,
} from "../../lib/app/operator/dead-letter-scan.js";
import type { RedriveReport } from "../../lib/app/operator/redrive.js";
import { printResult } from "../../lib/cli/cli-support.js";
import { renderClean, renderListing } from "../../lib/cli/dlq-command.js";
import { renderEvents } from "../../lib/cli/events-command.js";
import { renderRedriveReport } from "../../lib/cli/redrive-command.js";
import { renderRecord } from "../../lib/cli/status-command.js";
import { renderTargets } from "../../lib/cli/targets-command.js";
import type { ReceivedDeadLetter } from "../../lib/core/ports.js";
import type { EventRecord } from "../../lib/core/record.js";
import type { TargetReport } from "../../lib/core/target-report.js";
import { firstControl } from "./hostile-text.js";

/*
 * Guarantee 9 on the operator's terminal (issue #31, finding 7): what a run's hostile receivers
 * and producers wrote (bodies, key names, forged summaries) reaches every view an operator has of
 * it — `status`, `events`, `dlq list`, `dlq clean`, `redrive`, `targets` — through the CLI's own
 * renderers. Each human-readable rendering holds no character a terminal would obey; each JSON
 * output reads back exactly as the data it was printed from.
 */

/** Which view of the run a finding is about, and why it fails. */
export const RenderingProblem = {
  /** A human-readable rendering holds a control character (guarantee 9). */
  CONTROL_CHARACTER: "control_character",
  /** JSON output does not read back as the data (guarantee 9: it must stay exact). */
  JSON_NOT_EXACT: "json_not_exact",
} as const;
export type RenderingProblem = (typeof RenderingProblem)[keyof typeof RenderingProblem];

export interface RenderingFinding {
  readonly problem: RenderingProblem;
  /** The command whose output it is, and the event when it is about one. */
  readonly view: string;
  readonly detail: string;
}

/** What an operator can look at once a run is over. */
export interface OperatorViews {
  readonly records: readonly EventRecord[];
  readonly deadLetters: readonly DeadLetterListing[];
  readonly targets: readonly TargetReport[];
  readonly cleans: readonly CleanReport[];
  readonly redrives: readonly RedriveReport[];
  readonly nowMs: number;
}

/** `dlq list`'s rows for messages already received (a run's final read of the queue). */
export const listingsOf = (
  received: readonly ReceivedDeadLetter[],
  records: ReadonlyMap<string, EventRecord>,
): DeadLetterListing[] =>
  received.map((message) => {
    const parsed = readDeadLetter(message);
    const eventId = parsed.ok ? parsed.message.eventId : undefined;
    return toListing(
      { received: message, parsed, deadLetteredAtMs: message.sentAtMs },
      eventId === undefined ? undefined : records.get(eventId),
    );
  });

/** One command's output of `data`, as `printResult` writes it (with `--json` or without). */
const printed = <T>(data: T, human: (data: T) => string, json: boolean): string => {
  let out = "";
  printResult(data, { json, human }, { stdout: { write: (text: string) => (out += text) } });
  return out;
};

/** JSON output read back; a unique symbol when it is not JSON at all (never equal to data). */
const readBack = (json: string): unknown => {
  try {
    return JSON.parse(json);
  } catch {
    return Symbol("not JSON");
  }
};

const checkView = <T>(view: string, data: T, human: (data: T) => string): RenderingFinding[] => {
  const findings: RenderingFinding[] = [];
  // The renderer's own text: the CLI's last inert pass must not be what saves it.
  const control = firstControl(human(data));
  if (control !== undefined)
    findings.push({
      problem: RenderingProblem.CONTROL_CHARACTER,
      view,
      detail: `${view}: shows U+${(control.codePointAt(0) ?? 0).toString(16).padStart(4, "0")} raw`,
    });
  if (!isDeepStrictEqual(readBack(printed(data, human, true)), JSON.parse(JSON.stringify(data))))
    findings.push({
      problem: RenderingProblem.JSON_NOT_EXACT,
      view,
      detail: `${view}: --json output does not read back as the data`,
    });
  return findings;
};

/** Every rendering of `views` that shows a control character or whose JSON is not exact. */
export const checkInertRenderings = (views: OperatorViews): RenderingFinding[] => [
  ...views.records.flatMap((record) =>
    checkView(`status ${record.eventId}`, record, (r) => renderRecord(r, views.nowMs)),
  ),
  ...checkView("events", views.records, renderEvents),
  ...checkView("dlq list", views.deadLetters, renderListing),
  // Both tables: the breakers' and the failure counts shown when the breakers are off.
  ...checkView("targets", views.targets, renderTargets({ nowMs: views.nowMs, breakersOn: true })),
  ...checkView(
    "targets (breakers off)",
    views.targets,
    renderTargets({ nowMs: views.nowMs, breakersOn: false }),
  ),
  ...views.cleans.flatMap((report, n) => checkView(`dlq clean #${n}`, report, renderClean)),
  ...views.redrives.flatMap((report, n) => checkView(`redrive #${n}`, report, renderRedriveReport)),
];
