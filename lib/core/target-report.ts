import { LimitChange } from "./adaptive-limit.js";
import { type BreakerSettings, BreakerState, DEFAULT_BREAKER_SETTINGS } from "./circuit-breaker.js";
import {
  type LearnedLimitSummary,
  learnedLimitText,
  learnedSummary,
  rateText,
} from "./learned-limits.js";
import type { ListedTarget } from "./ports.js";
import { currentWindow } from "./target-view.js";
import { formatSeconds, isoOf } from "./time-format.js";

/** One target as operators are shown it (`ricochet targets`, the console); times are ISO 8601. */
export interface TargetReport {
  readonly target: string;
  readonly state: BreakerState;
  /** When an open breaker lets a probe through. */
  readonly reopenAt?: string | undefined;
  /**
   * Calls and failures counted in the current window. Successes are written only with a failure,
   * so `calls` leaves out those since the last failure: the rate is an upper bound.
   */
  readonly calls: number;
  readonly failures: number;
  readonly failureRate?: number | undefined;
  /** Deferrals since the breaker last opened (approximate; see docs/design-notes.md). */
  readonly deferred: number;
  readonly lastError?: string | undefined;
  readonly lastErrorAt?: string | undefined;
  readonly openedAt?: string | undefined;
  readonly closedAt?: string | undefined;
  readonly updatedAt: string;
  /**
   * The adaptive limit the instances hold the target to (#35), summed over their fresh entries;
   * undefined when none holds it back (at its ceiling, or adaptive limits off).
   */
  readonly learned?: LearnedLimitReport | undefined;
}

/** A target's learned limit as operators are shown it; `changedAt` is ISO 8601. */
interface LearnedLimitReport extends Omit<LearnedLimitSummary, "changedAtMs"> {
  readonly changedAt: string;
}

/** The learned limit of `listed`'s fresh entries at `nowMs`, as reported. */
const learnedReport = (listed: ListedTarget, nowMs: number): LearnedLimitReport | undefined => {
  const summary = learnedSummary(listed.learned ?? [], nowMs);
  if (summary === undefined) return undefined;
  const { changedAtMs, ...rest } = summary;
  return { ...rest, changedAt: isoOf(changedAtMs) };
};

const isoOrNone = (ms: number | undefined): string | undefined =>
  ms === undefined ? undefined : isoOf(ms);

/** What an operator is shown of a listed target at `nowMs`, its breaker window `windowMs` long. */
export const targetReport = (
  listed: ListedTarget,
  nowMs: number,
  windowMs: number,
): TargetReport => {
  const { breaker, notes } = listed;
  const { calls, failures } = currentWindow(breaker, nowMs, windowMs);
  return {
    target: listed.key,
    state: breaker.state,
    reopenAt: breaker.state === BreakerState.OPEN ? isoOrNone(breaker.reopenAtMs) : undefined,
    calls,
    failures,
    failureRate: calls === 0 ? undefined : failures / calls,
    deferred: notes?.deferred ?? 0,
    lastError: notes?.lastError,
    lastErrorAt: isoOrNone(notes?.lastErrorAtMs),
    openedAt: isoOrNone(notes?.openedAtMs),
    closedAt: isoOrNone(notes?.closedAtMs),
    updatedAt: listed.updatedAt,
    learned: learnedReport(listed, nowMs),
  };
};

/**
 * What `ricochet targets` and the console say when the breakers are off: the targets' items then
 * hold only the failures the orchestrator still counts (lib/app/orchestrator/target-failure-counter.ts).
 */
export const BREAKERS_OFF_NOTE =
  "Circuit breakers are off: no target is held back, but each target's failures are counted.";

/** What operators say when no target has an item. */
export const NO_TARGET_FAILED = "No target has failed yet.";

/**
 * The listed targets as operators are shown them, counted in the window of `breakers` (the
 * deployment's settings, undefined when they are off: the failures are then counted in the
 * default window).
 */
export const targetReports = (
  listed: readonly ListedTarget[],
  nowMs: number,
  breakers: BreakerSettings | undefined,
): TargetReport[] => {
  const { windowMs } = breakers ?? DEFAULT_BREAKER_SETTINGS;
  return listed.map((target) => targetReport(target, nowMs, windowMs));
};

/** The learned limit's columns, headed as `ricochet targets` and the console show them. */
export const LEARNED_LIMIT_HEADINGS = ["learned limit", "ceiling", "limit reason", "limit changed"];

/** Why a limit last changed, in operators' words. */
const REASON_TEXT: Readonly<Record<LimitChange, string>> = {
  [LimitChange.START]: "start",
  [LimitChange.INCREASE]: "increase",
  [LimitChange.OVERLOAD]: "overload (429/503/throttle/timeout)",
  [LimitChange.LATENCY]: "latency",
  [LimitChange.RETRY_AFTER]: "Retry-After",
  [LimitChange.BREAKER_OPEN]: "breaker open",
  [LimitChange.BREAKER_CLOSED]: "breaker closed",
};

/**
 * A target's learned-limit cells at `nowMs`, under {@link LEARNED_LIMIT_HEADINGS}: one spelling
 * for the CLI and the console. A target no instance holds back says so, and leaves the rest empty.
 */
export const learnedLimitCells = (report: TargetReport, nowMs: number): readonly string[] => {
  const { learned } = report;
  if (learned === undefined) return [learnedLimitText(undefined), "", "", ""];
  const agoSeconds = Math.max(0, nowMs - Date.parse(learned.changedAt)) / 1_000;
  return [
    learnedLimitText(learned),
    rateText(learned.ceilingPerSecond),
    REASON_TEXT[learned.reason],
    `${formatSeconds(agoSeconds)} ago`,
  ];
};
