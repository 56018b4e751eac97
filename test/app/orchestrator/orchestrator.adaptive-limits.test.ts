import { describe, expect, it } from "vitest";
import { createAdaptiveLimiter } from "../../../lib/app/orchestrator/adaptive-limits.js";
import { adaptiveSettingsFor } from "../../../lib/core/adaptive-limit.js";
import { silentLog } from "../../../lib/core/observability.js";
import type { AttemptResult } from "../../../lib/core/outcome.js";
import { MessageOrigin } from "../../../lib/core/ports.js";
import { seededRandom } from "../../../lib/core/random.js";
import { EventStatus } from "../../../lib/core/status.js";
import { rateWindowOf } from "../../../lib/core/target-limits.js";
import { FIXED_NOW_MS } from "../../support/factories.js";
import { memoryOrchestrator } from "../../support/memory-orchestrator.js";

/*
 * The orchestrator with adaptive limits, against a partner that takes PARTNER_RATE calls in each
 * aligned second and answers 429 to the rest: the limit learns the partner's pace, the events it
 * holds back are deferred without an attempt, and none is lost. In memory, on a moved clock.
 */

const PARTNER_RATE = 5;
const EVENTS_PER_SECOND = 20;
const SECONDS = 8;

const bodyOf = (eventId: string, deadlineSeconds?: number) =>
  JSON.stringify({
    eventId,
    target: { type: "http", url: "https://partner.example/hook" },
    payload: { eventId },
    policy: { maxAttempts: 25, baseDelaySeconds: 1, maxDelaySeconds: 2, deadlineSeconds },
  });

/**
 * Runs SECONDS seconds of EVENTS_PER_SECOND new events, each second's ready messages handled;
 * each event's deadline `deadlineSeconds` after its first sight, when given.
 */
const run = async (adaptive: boolean, deadlineSeconds?: number) => {
  const time = { nowMs: FIXED_NOW_MS };
  const clock = () => time.nowMs;
  const taken = new Map<number, number>();
  const tooMany: number[] = Array(SECONDS).fill(0);
  const delivered: number[] = Array(SECONDS).fill(0);
  const second = () => Math.floor((time.nowMs - FIXED_NOW_MS) / 1_000);
  const answer = (): AttemptResult => {
    const window = rateWindowOf(time.nowMs);
    const count = (taken.get(window) ?? 0) + 1;
    taken.set(window, count);
    if (count <= PARTNER_RATE) {
      delivered[second()] = (delivered[second()] ?? 0) + 1;
      return { kind: "response", statusCode: 200, durationMs: 40 };
    }
    tooMany[second()] = (tooMany[second()] ?? 0) + 1;
    return { kind: "response", statusCode: 429, durationMs: 5 };
  };
  const w = memoryOrchestrator({
    nowMs: FIXED_NOW_MS,
    clock,
    workerId: "worker-a",
    seed: 4,
    messageConcurrency: 1,
    answer,
    adaptive: adaptive
      ? createAdaptiveLimiter({
          settingsFor: () => adaptiveSettingsFor({}, 1_000),
          clock,
          random: seededRandom(5),
          log: silentLog,
        })
      : undefined,
  });
  const ids: string[] = [];
  for (let s = 0; s < SECONDS; s += 1) {
    time.nowMs = FIXED_NOW_MS + s * 1_000;
    for (let i = 0; i < EVENTS_PER_SECOND; i += 1) {
      const id = `e-${s}-${i}`;
      ids.push(id);
      w.ingress.send(bodyOf(id, deadlineSeconds), { generation: 0 }, 0, {
        origin: MessageOrigin.PRODUCER,
      });
    }
    // Every message visible this second is handled in it, a millisecond apart.
    const endMs = time.nowMs + 1_000;
    for (;;) {
      const visibleAtMs = w.ingress.nextVisibleAtMs();
      if (visibleAtMs === undefined || visibleAtMs > time.nowMs || time.nowMs >= endMs) break;
      await w.handleNext();
      time.nowMs += 1;
    }
  }
  const records = await Promise.all(ids.map((id) => w.store.get(id)));
  const callsOf = new Map<string, number>();
  for (const call of w.calls)
    callsOf.set(call.envelope.eventId, (callsOf.get(call.envelope.eventId) ?? 0) + 1);
  return { tooMany, delivered, records, callsOf };
};

describe("the orchestrator with adaptive limits, against a rate-limited partner", () => {
  it("learns the partner's pace: 429s become rare once it has pushed back, where without limits they are not", async () => {
    const adaptive = await run(true);
    const none = await run(false);

    const pastTheFirstTwo = (counts: number[]) => counts.slice(2).reduce((a, b) => a + b, 0);
    // Without limits every second past the partner's five calls is a 429, a spent attempt each.
    expect(pastTheFirstTwo(none.tooMany)).toBeGreaterThan(10 * (SECONDS - 2));
    // Learned in the first second; the AIMD probing above the pace costs about one a second.
    expect(pastTheFirstTwo(adaptive.tooMany)).toBeLessThanOrEqual(SECONDS - 2);
    // ...and the partner's pace is still used: at least 90 % of it in every second.
    for (const calls of adaptive.delivered)
      expect(calls).toBeGreaterThanOrEqual(0.9 * PARTNER_RATE);
  });

  it("defers the events it holds back without charging an attempt, and loses none", async () => {
    const { records, callsOf } = await run(true);

    const waiting = records.filter((r) => r?.deferral?.cause === "rate_limit");
    expect(waiting.length).toBeGreaterThan(EVENTS_PER_SECOND);
    for (const record of records) {
      if (record === undefined) throw new Error("an event submitted was never recorded");
      expect(record.status).not.toBe(EventStatus.DEAD_LETTERED);
      // Attempts are the calls made, 429s included; a deferral made none and charged none.
      expect(record.attempts).toBe(callsOf.get(record.eventId) ?? 0);
    }
  });

  it("calls an event it holds back once before its deadline, rather than dead-letter it untried", async () => {
    // Demand four times the partner's pace and a 2 s deadline: most events cannot be delivered
    // in time whatever is done, and each of those must have been tried.
    const { records, callsOf } = await run(true, 2);

    const lost = records.filter((r) => r?.status === EventStatus.DEAD_LETTERED);
    expect(lost.length).toBeGreaterThan(EVENTS_PER_SECOND);
    for (const record of lost) expect(callsOf.get(record?.eventId ?? "")).toBeGreaterThanOrEqual(1);
    for (const record of records)
      expect(record?.attempts).toBe(callsOf.get(record?.eventId ?? "") ?? 0);
  });
});
