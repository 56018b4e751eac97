import { type Breaker, BreakerState } from "./circuit-breaker.js";
import { storedExcerpt } from "./outcome.js";

/*
 * What operators are told about a target beside its breaker's state. Every note rides on a write
 * the breaker makes anyway (a failure's count, a state change), except the deferred count, which
 * is flushed at most every few seconds per instance while the breaker turns events away.
 */

/** Longest last-error excerpt kept on a target's item: enough to recognise the failure. */
export const MAX_TARGET_ERROR_LENGTH = 120;

/** A target's notes for operators, as its item holds them. */
export interface TargetNotes {
  /** The latest failure counted, redacted and cut to {@link MAX_TARGET_ERROR_LENGTH}. */
  readonly lastError?: string | undefined;
  readonly lastErrorAtMs?: number | undefined;
  /**
   * Deferrals since the breaker last opened from closed, approximate: an event deferred twice
   * counts twice, and an instance's last few seconds of deferrals are lost if it stops.
   */
  readonly deferred?: number | undefined;
  /** When the breaker last opened from closed: the start of the current (or last) outage. */
  readonly openedAtMs?: number | undefined;
  /** When the breaker last closed after an outage. */
  readonly closedAtMs?: number | undefined;
}

/** The excerpt of a failure's message a target's item keeps (the message is redacted again). */
export const targetErrorExcerpt = (message: string): string =>
  storedExcerpt(message, { maxLength: MAX_TARGET_ERROR_LENGTH });

/**
 * What a state change stamps on the target's item: the outage's start when a closed breaker
 * opens (a reopening after a failed probe keeps it), its end when the breaker closes.
 */
export const stateChangeStamps = (
  breaker: Breaker,
): Pick<TargetNotes, "openedAtMs" | "closedAtMs"> => {
  if (breaker.state === BreakerState.OPEN && breaker.openings === 1)
    return { openedAtMs: breaker.changedAtMs };
  if (breaker.state === BreakerState.CLOSED) return { closedAtMs: breaker.changedAtMs };
  return {};
};

/** Whether a state change starts a new outage, so the deferred count starts over. */
export const startsOutage = (breaker: Breaker): boolean =>
  stateChangeStamps(breaker).openedAtMs !== undefined;

/**
 * Since when the target has been failing, for the "breaker open too long" alarm: the outage's
 * start, or (an item written before the stamps existed) the breaker's last change.
 */
export const outageStartMs = (breaker: Breaker, notes: TargetNotes | undefined): number =>
  notes?.openedAtMs ?? breaker.changedAtMs;

/** The calls and failures of a window, if it is the current one; an older window counts none. */
export const currentWindow = (
  breaker: Breaker,
  nowMs: number,
  windowMs: number,
): { readonly calls: number; readonly failures: number } =>
  nowMs - breaker.windowStartMs < windowMs
    ? { calls: breaker.calls, failures: breaker.failures }
    : { calls: 0, failures: 0 };
