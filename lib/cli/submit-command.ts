import { type Command, Option } from "commander";
import type { RejectedEvent, SubmitReport } from "../client/producer-client.js";
import { formatProblems, InvalidRequestError, QueueUnavailableError } from "../core/errors.js";
import { notBeforeOfSchedule } from "../core/submit-schedule.js";
import { traceOfSubmission } from "../core/submit-trace.js";
import { withAwsSession } from "./aws-session.js";
import { printResult, withJsonOption } from "./cli-support.js";
import { addResourceOptions, type ResourceFlags } from "./resources.js";
import { parseSubmitInput, readEnvelopeText, scheduleDocuments } from "./submit-input.js";
import { parseDuration, parseIsoInstant } from "./time-flags.js";

interface SubmitFlags extends ResourceFlags {
  readonly file?: string;
  readonly json: boolean;
  /** `--at`: ISO instant. */
  readonly at?: string;
  /** `--in`: seconds from now. */
  readonly in?: number;
  /** `--traceparent`, `--tracestate`: the producer's W3C trace context for every event. */
  readonly traceparent?: string;
  readonly tracestate?: string;
}

const why = (r: RejectedEvent): string =>
  r.problems === undefined ? (r.error ?? "rejected") : formatProblems(r.problems);

const renderReport = (report: SubmitReport): string => {
  const lines = report.accepted.map((a) => `accepted ${a.eventId} (message ${a.messageId})`);
  for (const r of report.rejected) {
    lines.push(
      `rejected #${r.index + 1}${r.eventId === undefined ? "" : ` ${r.eventId}`}: ${why(r)}`,
    );
  }
  return lines.join("\n");
};

/** Whether a rejection is the caller's to fix (exit 2) rather than a failure of SQS (exit 1). */
const isInputProblem = (r: RejectedEvent): boolean =>
  r.problems !== undefined || /^(duplicate|message is)/.test(r.error ?? "");

/** `ricochet submit`: validates and sends one envelope, or an NDJSON file of them. */
export const registerSubmitCommand = (program: Command): void => {
  const command = program
    .command("submit")
    .description("Send an envelope (JSON) or many (NDJSON, one per line) to the ingress queue.")
    .option("-f, --file <path>", "read from this file instead of stdin ('-' is stdin)")
    .addOption(
      new Option("--at <instant>", "deliver no earlier than this ISO 8601 instant (notBefore)")
        .argParser(parseIsoInstant)
        .conflicts("in"),
    )
    .addOption(
      new Option("--in <duration>", "deliver no earlier than this long from now: 90s, 15m, 2h, 3d")
        .argParser(parseDuration)
        .conflicts("at"),
    )
    .option("--traceparent <value>", "join this W3C trace: 00-<trace id>-<span id>-<flags>")
    .option("--tracestate <value>", "the trace's W3C tracestate, sent with --traceparent");
  addResourceOptions(withJsonOption(command)).action(async (flags: SubmitFlags) => {
    const trace = { traceparent: flags.traceparent, tracestate: flags.tracestate };
    // Checked before the input is read: a context the client would refuse refuses the command.
    traceOfSubmission(trace);
    const text = await readEnvelopeText(flags.file);
    // `--at` as given, `--in` counted from now: the producer client's schedule, read the same way.
    const notBefore = notBeforeOfSchedule(
      { notBefore: flags.at, delaySeconds: flags.in },
      Date.now(),
    );
    const parsed = parseSubmitInput(text);
    const input = notBefore === undefined ? parsed : scheduleDocuments(parsed, notBefore);
    // The producer client loads the SQS SDK; imported here so start-up does not wait for it.
    const { createRicochetClient } = await import("../client/producer-client.js");
    const report = await withAwsSession(["ingressQueueUrl"], flags, async (session) => {
      const client = createRicochetClient({
        queueUrl: session.ingressQueueUrl(),
        sqs: session.clients.sqs,
      });
      const sent = await client.submitBatch(
        input.documents.map((d) => d.value),
        { trace },
      );
      // Positions in the input, not in the list of readable documents.
      const rejected: RejectedEvent[] = [
        ...sent.rejected.map((r) => ({ ...r, index: input.documents[r.index]?.index ?? r.index })),
        ...input.unreadable,
      ].sort((a, b) => a.index - b.index);
      return { accepted: sent.accepted, rejected };
    });
    printResult(report, { json: flags.json, human: renderReport });
    if (report.rejected.length === 0) return;
    const total = report.accepted.length + report.rejected.length;
    const first = report.rejected[0] as RejectedEvent;
    const summary = `${report.rejected.length} of ${total} events rejected (first: #${first.index + 1}: ${why(first)})`;
    if (report.rejected.every(isInputProblem)) {
      throw new InvalidRequestError("submission", [{ path: "", message: summary }]);
    }
    throw new QueueUnavailableError(summary);
  });
};
