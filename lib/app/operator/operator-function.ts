import { inSpan, type SpanAttributes, SpanName, type Tracer } from "../../core/tracing.js";
import { type CancelReport, cancelEvents } from "./cancel.js";
import { type OperatorRequest, parseOperatorRequest } from "./operator-request.js";
import { type RedriveReport, redrive } from "./redrive.js";
import type { RedriveDeps } from "./redrive-deps.js";
import { type ReplayReport, replayEvents } from "./replay.js";
import {
  type StuckSweepDeps,
  type StuckSweepReport,
  type StuckSweepSettings,
  sweepStuckEvents,
} from "./stuck-sweep.js";
import { tracedOperatorDeps } from "./traced-operator.js";

/*
 * What the operator function (functions/operator.ts) does with an invocation: validate it, then
 * run the one use case its `action` names, with the deployment's own ports and policy. Kept here,
 * free of the Lambda runtime, so it is tested against the emulators without one.
 */

/** Everything the three actions need between them. */
export interface OperatorFunctionDeps extends RedriveDeps {
  /** How long a cancelled record is kept (its TTL), in seconds. */
  readonly retentionSeconds: number;
  /** The stuck-event sweep's metrics, log and settings; without them a sweep is refused. */
  readonly stuckSweep?:
    | (Omit<StuckSweepDeps, "store" | "clock"> & { readonly settings: StuckSweepSettings })
    | undefined;
  /** Spans of each request and of its writes and sends; none by default. */
  readonly tracer?: Tracer | undefined;
}

/** The report of the action the request named. */
export type OperatorReport = RedriveReport | CancelReport | ReplayReport | StuckSweepReport;

/**
 * Runs the request's action (`redrive` when it names none) and returns its report; `onAccepted`
 * sees the validated request before anything is done (the function logs it, for CloudTrail). The
 * audit entries' `caller` is what `deps.callerIdentity` reports.
 * @throws InvalidRequestError listing every problem when the request is invalid (nothing done).
 */
export const runOperatorRequest = async (
  deps: OperatorFunctionDeps,
  value: unknown,
  onAccepted?: (request: OperatorRequest) => void,
): Promise<OperatorReport> => {
  const parsed = parseOperatorRequest(value);
  onAccepted?.(parsed);
  const { tracer } = deps;
  if (tracer === undefined) return runAction(deps, parsed);
  const dryRun = parsed.action === "sweep-stuck" ? undefined : parsed.request.dryRun;
  return inSpan(
    tracer,
    SpanName.OPERATOR_REQUEST,
    undefined,
    { "ricochet.operator.action": parsed.action, "ricochet.dry_run": dryRun },
    (span) => runAction(tracedOperatorDeps(deps, tracer, span.context, parsed.action), parsed),
    reportCounts,
  );
};

/** Runs the one use case the request names. */
const runAction = async (
  deps: OperatorFunctionDeps,
  parsed: OperatorRequest,
): Promise<OperatorReport> => {
  switch (parsed.action) {
    case "redrive":
      return redrive(deps, parsed.request);
    case "cancel":
      return cancelEvents(deps, parsed.request);
    case "replay":
      return replayEvents(deps, parsed.request);
    case "sweep-stuck": {
      const sweep = deps.stuckSweep;
      if (sweep === undefined) throw new Error("this operator function has no stuck sweep wired");
      return sweepStuckEvents({ ...sweep, store: deps.store, clock: deps.clock }, sweep.settings);
    }
  }
};

/** How many events each list of a report names (moved, skipped, failed, …): counts, never ids. */
const reportCounts = (report: OperatorReport): SpanAttributes =>
  Object.fromEntries(
    Object.entries(report).flatMap(([key, list]) =>
      Array.isArray(list) ? [[`ricochet.report.${key}`, list.length]] : [],
    ),
  );
