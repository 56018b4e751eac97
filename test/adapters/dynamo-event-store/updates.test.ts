import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cancelCondition,
  claimCondition,
  deferralCondition,
  holdingTheLease,
  RECORD_PRESENT,
  redriveCondition,
  replayCondition,
  scheduleCondition,
} from "../../../lib/adapters/dynamo-event-store/conditions.js";
import type { ExpressionPart } from "../../../lib/adapters/dynamo-event-store/expression-part.js";
import {
  auditUpdate,
  cancelUpdate,
  claimUpdate,
  conflictUpdate,
  deferralUpdate,
  pendingDeadLetterUpdate,
  redriveUpdate,
  replayUpdate,
  resultUpdate,
  scheduleUpdate,
} from "../../../lib/adapters/dynamo-event-store/updates.js";
import { DeadLetterReason } from "../../../lib/core/decide.js";
import { DeferralCause } from "../../../lib/core/deferral.js";
import { OutcomeClass } from "../../../lib/core/outcome.js";
import type {
  CancelRecordRequest,
  RecordConflictRequest,
  RecordPendingDeadLetterRequest,
  RedriveRecordRequest,
  ReplayRecordRequest,
} from "../../../lib/core/ports.js";
import {
  AuditAction,
  type AuditEntry,
  MAX_HISTORY_ENTRIES,
  type RedriveEntry,
} from "../../../lib/core/record.js";
import { EventStatus } from "../../../lib/core/status.js";
import { anAttemptEntry, anEventRecord, FIXED_NOW_MS } from "../../support/factories.js";

/*
 * DynamoDB refuses a write naming a placeholder without a value, or a value or name its
 * expressions never use; and the store merges an update's values with its condition's, so a
 * placeholder both use must mean the same in each. These pin that for every write the store
 * makes, over the variants that change its expressions, without an emulator.
 */

const placeholders = (expression: string, sigil: ":" | "#"): Set<string> =>
  new Set(expression.match(sigil === ":" ? /:[A-Za-z]\w*/g : /#[A-Za-z]\w*/g) ?? []);

/** Every placeholder the pair uses, against the values and names it supplies; [] when sound. */
const mismatches = (update: ExpressionPart, condition: ExpressionPart): string[] => {
  const problems: string[] = [];
  const text = `${update.expression} ${condition.expression}`;
  const values = { ...update.values, ...condition.values };
  const names = { ...update.names, ...condition.names };
  for (const [sigil, supplied] of [
    [":", values],
    ["#", names],
  ] as const) {
    const used = placeholders(text, sigil);
    for (const name of used) if (!(name in supplied)) problems.push(`${name} has no value`);
    for (const name of Object.keys(supplied)) if (!used.has(name)) problems.push(`${name} unused`);
  }
  for (const [name, value] of Object.entries(update.values)) {
    if (
      name in condition.values &&
      JSON.stringify(condition.values[name]) !== JSON.stringify(value)
    )
      problems.push(`${name} means two things`);
  }
  return problems;
};

const at = new Date(FIXED_NOW_MS).toISOString();
const audit: AuditEntry = { at, by: "operator", action: AuditAction.CANCELLED, reason: "test" };
const redriveAudit: RedriveEntry = {
  at,
  by: "operator",
  reason: "test",
  previousStatus: EventStatus.DEAD_LETTERED,
  previousAttempts: 3,
  attemptBudget: 5,
};
const pendingDeadLetter: RecordPendingDeadLetterRequest = {
  eventId: "evt-1",
  worker: "worker-1",
  generation: 2,
  pending: {
    reason: DeadLetterReason.EXHAUSTED,
    entry: anAttemptEntry(),
    lastOutcome: { class: OutcomeClass.RETRYABLE, message: "HTTP 503" },
    generation: 2,
    attempts: 5,
    decidedAt: at,
  },
  nowMs: FIXED_NOW_MS,
};
const conflict: RecordConflictRequest = { eventId: "evt-1", digest: "abc", nowMs: FIXED_NOW_MS };
const redrive: RedriveRecordRequest = {
  eventId: "evt-1",
  generation: 3,
  attemptBudget: 5,
  audit: redriveAudit,
  nowMs: FIXED_NOW_MS,
};
const cancel: CancelRecordRequest = {
  eventId: "evt-1",
  expectedStatus: EventStatus.RETRY_SCHEDULED,
  generation: 1,
  audit,
  nowMs: FIXED_NOW_MS,
  retentionSeconds: 86_400,
};
const replay: ReplayRecordRequest = {
  eventId: "evt-1",
  generation: 2,
  attemptBudget: 5,
  audit,
  nowMs: FIXED_NOW_MS,
};

const firstSight = fc.record({
  attemptBudget: fc.integer({ min: 1, max: 20 }),
  targetSummary: fc.string(),
  envelopeDigest: fc.string({ minLength: 1 }),
  targetGroup: fc.option(fc.string(), { nil: undefined }),
  policyAdjustments: fc.option(fc.array(fc.string(), { maxLength: 2 }), { nil: undefined }),
});
const generation = fc.integer({ min: 0, max: 5 });

describe("each write's update and condition", () => {
  it("name exactly the placeholders they supply, for a claim at any generation", () => {
    fc.assert(
      fc.property(firstSight, generation, (sight, gen) => {
        const request = {
          ...sight,
          eventId: "evt-1",
          generation: gen,
          worker: "worker-1",
          nowMs: FIXED_NOW_MS,
          leaseMs: 30_000,
        };
        expect(mismatches(claimUpdate(request), claimCondition(request))).toEqual([]);
      }),
    );
  });

  it("name exactly the placeholders they supply, for a scheduling write", () => {
    fc.assert(
      fc.property(firstSight, (sight) => {
        const request = {
          ...sight,
          eventId: "evt-1",
          dueMs: FIXED_NOW_MS + 60_000,
          nowMs: FIXED_NOW_MS,
        };
        expect(mismatches(scheduleUpdate(request), scheduleCondition(request))).toEqual([]);
      }),
    );
  });

  it("name exactly the placeholders they supply, for a deferral at any generation and cause", () => {
    fc.assert(
      fc.property(
        firstSight,
        generation,
        fc.constantFrom(...Object.values(DeferralCause)),
        (sight, gen, cause) => {
          const request = {
            ...sight,
            eventId: "evt-1",
            generation: gen,
            nowMs: FIXED_NOW_MS,
            dueMs: FIXED_NOW_MS + 30_000,
            cause,
            targetKey: "group:partner",
          };
          expect(mismatches(deferralUpdate(request), deferralCondition(request))).toEqual([]);
        },
      ),
    );
  });

  it("name exactly the placeholders they supply, for a result write of any status and history", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          EventStatus.DELIVERED,
          EventStatus.RETRY_SCHEDULED,
          EventStatus.REJECTED,
          EventStatus.DEAD_LETTERED,
        ),
        fc.integer({ min: 0, max: MAX_HISTORY_ENTRIES }),
        fc.option(fc.integer({ min: 1, max: 900 }), { nil: undefined }),
        fc.option(fc.constant("2030-01-01T00:01:00.000Z"), { nil: undefined }),
        fc.option(fc.constant(DeadLetterReason.EXHAUSTED), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
        (status, historyLength, delaySeconds, nextAttemptAt, deadLetterReason, attempts) => {
          const request = {
            eventId: "evt-1",
            worker: "worker-1",
            generation: 0,
            newGeneration: 1,
            status,
            claimed: anEventRecord({
              history: Array.from({ length: historyLength }, () => anAttemptEntry()),
            }),
            entry: anAttemptEntry({ delaySeconds }),
            nextAttemptAt,
            deadLetterReason,
            attempts,
            nowMs: FIXED_NOW_MS,
            retentionSeconds: 86_400,
          };
          expect(mismatches(resultUpdate(request), holdingTheLease(request))).toEqual([]);
        },
      ),
    );
  });

  const fixed: [string, ExpressionPart, ExpressionPart][] = [
    [
      "pending dead letter",
      pendingDeadLetterUpdate(pendingDeadLetter),
      holdingTheLease(pendingDeadLetter),
    ],
    ["conflict count", conflictUpdate(conflict), RECORD_PRESENT],
    ["audit append", auditUpdate(audit), RECORD_PRESENT],
    ["redrive", redriveUpdate(redrive), redriveCondition(redrive)],
    ["cancel", cancelUpdate(cancel), cancelCondition(cancel)],
    ["replay", replayUpdate(replay), replayCondition(replay)],
  ];
  it.each(fixed)(
    "name exactly the placeholders they supply, for a %s",
    (_name, update, condition) => {
      expect(mismatches(update, condition)).toEqual([]);
    },
  );
});
