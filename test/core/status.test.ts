import { describe, expect, it } from "vitest";
import { IllegalTransitionError } from "../../lib/core/errors.js";
import {
  ALL_STATUSES,
  assertTransition,
  canTransition,
  EventStatus,
  isTerminal,
} from "../../lib/core/status.js";

const S = EventStatus;
type From = EventStatus | undefined;

/** Every move the state machine allows; anything else is illegal. */
const ALLOWED: readonly [From, EventStatus][] = [
  [undefined, S.PENDING],
  [undefined, S.IN_FLIGHT],
  [undefined, S.REJECTED],
  // An event whose notBefore is ahead waits, by hops, for its first attempt.
  [undefined, S.SCHEDULED],
  [S.SCHEDULED, S.IN_FLIGHT],
  [S.SCHEDULED, S.SCHEDULED],
  [S.PENDING, S.IN_FLIGHT],
  [S.RETRY_SCHEDULED, S.IN_FLIGHT],
  [S.IN_FLIGHT, S.IN_FLIGHT],
  [S.IN_FLIGHT, S.DELIVERED],
  [S.IN_FLIGHT, S.RETRY_SCHEDULED],
  [S.IN_FLIGHT, S.REJECTED],
  [S.IN_FLIGHT, S.DEAD_LETTERED],
  [S.REJECTED, S.PENDING],
  [S.DEAD_LETTERED, S.PENDING],
  // Redrive of an event a crash loop stranded.
  [S.PENDING, S.PENDING],
  [S.RETRY_SCHEDULED, S.PENDING],
  [S.SCHEDULED, S.PENDING],
  [S.IN_FLIGHT, S.PENDING],
  // A deferral notes on a waiting retry when it is tried instead (issue #36, finding 5).
  [S.RETRY_SCHEDULED, S.RETRY_SCHEDULED],
  // A corrected resubmission claims the placeholder an invalid envelope left under its id.
  [S.REJECTED, S.IN_FLIGHT],
  // An operator cancels a waiting event, or replays a delivered one.
  [S.PENDING, S.CANCELLED],
  [S.SCHEDULED, S.CANCELLED],
  [S.RETRY_SCHEDULED, S.CANCELLED],
  [S.DELIVERED, S.PENDING],
];

const key = ([from, to]: readonly [From, EventStatus]) => `${from ?? "(new)"}->${to}`;
const allowedKeys = new Set(ALLOWED.map(key));
const ILLEGAL = ([undefined, ...ALL_STATUSES] as From[])
  .flatMap((from) => ALL_STATUSES.map((to): [From, EventStatus] => [from, to]))
  .filter((pair) => !allowedKeys.has(key(pair)));

describe("event status transitions", () => {
  it.each(ALLOWED)("allows %s -> %s", (from, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(() => assertTransition(from, to)).not.toThrow();
  });

  it("forbids the moves that matter most", () => {
    for (const pair of [
      [S.DELIVERED, S.IN_FLIGHT],
      [S.DELIVERED, S.CANCELLED],
      [S.IN_FLIGHT, S.CANCELLED],
      [S.CANCELLED, S.PENDING],
      [S.CANCELLED, S.IN_FLIGHT],
      [S.PENDING, S.DELIVERED],
      [S.RETRY_SCHEDULED, S.DEAD_LETTERED],
      [S.SCHEDULED, S.DELIVERED],
      [S.DEAD_LETTERED, S.IN_FLIGHT],
      [undefined, S.DELIVERED],
    ] as [From, EventStatus][]) {
      expect(ILLEGAL.map(key)).toContain(key(pair));
    }
  });

  it.each(ILLEGAL)("forbids %s -> %s with an IllegalTransitionError naming both", (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    expect(() => assertTransition(from, to)).toThrow(IllegalTransitionError);
    expect(() => assertTransition(from, to)).toThrow(`${from ?? "(new)"} -> ${to}`);
  });

  it.each([
    [S.DELIVERED, true],
    [S.REJECTED, true],
    [S.DEAD_LETTERED, true],
    [S.CANCELLED, true],
    [S.PENDING, false],
    [S.IN_FLIGHT, false],
    [S.RETRY_SCHEDULED, false],
    [S.SCHEDULED, false],
  ])("%s is terminal: %s", (status, terminal) => {
    expect(isTerminal(status)).toBe(terminal);
  });
});
