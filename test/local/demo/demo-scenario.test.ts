import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decideAfterAttempt } from "../../../lib/core/decide.js";
import type { AttemptResult } from "../../../lib/core/outcome.js";
import { classify } from "../../../lib/core/outcome.js";
import { DEFAULT_POLICY, ErrorCategory, resolvePolicy } from "../../../lib/core/policy.js";
import { seededRandom } from "../../../lib/core/random.js";
import { EventStatus } from "../../../lib/core/status.js";
import {
  Behaviour,
  DEMO_POLICY,
  type DemoEvent,
  expectedEnd,
  planDemo,
  respond,
} from "../../../lib/local/demo/demo-scenario.js";

const policy = resolvePolicy(DEFAULT_POLICY, DEMO_POLICY);

const timedOut: AttemptResult = {
  kind: "error",
  category: ErrorCategory.TIMEOUT,
  requestSent: true,
  message: "timed out",
  durationMs: 10_000,
};

/**
 * Plays one event through the real retry decisions against the receiver's scripted answers, as
 * the demo does: a dead-lettered down-then-recovering event is redriven once with a fresh budget.
 * `lostAnswer` names one call whose answer never reaches Ricochet (a timeout under load): the
 * receiver counted it, Ricochet saw a timeout.
 */
const play = (event: DemoEvent, lostAnswer?: number) => {
  let budget = policy.maxAttempts;
  let redriven = false;
  for (let attempt = 1; attempt <= 2 * policy.maxAttempts; attempt += 1) {
    const reply = respond(event, attempt);
    const result: AttemptResult =
      reply.kind === "no_answer" || attempt === lostAnswer
        ? timedOut
        : {
            kind: "response",
            statusCode: reply.status,
            retryAfter: reply.headers?.["retry-after"],
            durationMs: 1,
          };
    const decision = decideAfterAttempt({
      policy,
      outcome: classify(result, policy),
      retryAfter: result.kind === "response" ? result.retryAfter : undefined,
      attemptsMade: attempt,
      attemptBudget: budget,
      nowMs: 0,
      random: seededRandom(attempt),
    });
    if (decision.kind === "delivered") return { status: EventStatus.DELIVERED, redriven };
    if (decision.kind === "rejected") return { status: EventStatus.REJECTED, redriven };
    if (decision.kind === "dead_letter") {
      if (event.behaviour !== Behaviour.DOWN_THEN_RECOVERING || redriven) {
        return { status: EventStatus.DEAD_LETTERED, redriven };
      }
      // The demo's redrive: resetAttempts grants a fresh policy budget on top of what was spent.
      redriven = true;
      budget = attempt + policy.maxAttempts;
    }
  }
  throw new Error(`${event.eventId} never ended`);
};

const plans = fc
  .record({ count: fc.integer({ min: 1, max: 300 }), seed: fc.nat() })
  .map(({ count, seed }) => planDemo(count, seed, "t"));

describe("the demo scenario", () => {
  it("plans the same behaviours for the same seed, whatever the run tag", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.nat(), (count, seed) => {
        const strip = (events: DemoEvent[]) =>
          events.map(({ behaviour, failures, index }) => ({ behaviour, failures, index }));
        expect(strip(planDemo(count, seed, "a"))).toEqual(strip(planDemo(count, seed, "b")));
      }),
    );
  });

  it("shows every behaviour once among the first events", () => {
    const first = planDemo(6, 42, "t").map((event) => event.behaviour);
    expect(new Set(first)).toEqual(new Set(Object.values(Behaviour)));
  });

  it("ends every event as its behaviour implies, through the real retry decisions", () => {
    fc.assert(
      fc.property(plans, (events) => {
        for (const event of events) expect(play(event)).toEqual(expectedEnd(event));
      }),
    );
  });

  it("ends every event the same way when any one of its answers is lost to a timeout", () => {
    fc.assert(
      fc.property(
        plans,
        fc.integer({ min: 1, max: 2 * DEMO_POLICY.maxAttempts }),
        (events, lost) => {
          for (const event of events) expect(play(event, lost)).toEqual(expectedEnd(event));
        },
      ),
      { numRuns: 50 },
    );
  });
});
