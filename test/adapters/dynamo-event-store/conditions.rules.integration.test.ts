import { PutCommand } from "@aws-sdk/lib-dynamodb";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { updateRecord } from "../../../lib/adapters/dynamo-event-store/conditional-writes.js";
import {
  claimCondition,
  deferralCondition,
  redriveCondition,
} from "../../../lib/adapters/dynamo-event-store/conditions.js";
import type { ExpressionPart } from "../../../lib/adapters/dynamo-event-store/expression-part.js";
import {
  createStoreContext,
  type StoreContext,
} from "../../../lib/adapters/dynamo-event-store/store-context.js";
import {
  claimUpdate,
  deferralUpdate,
  redriveUpdate,
} from "../../../lib/adapters/dynamo-event-store/updates.js";
import { itemToRecord } from "../../../lib/adapters/dynamo-record-item.js";
import { isInvalidPlaceholder, mayClaim } from "../../../lib/core/claim.js";
import { DeadLetterReason } from "../../../lib/core/decide.js";
import { DeferralCause, mayRecordDeferral } from "../../../lib/core/deferral.js";
import type {
  ClaimRequest,
  RecordDeferralRequest,
  RedriveRecordRequest,
} from "../../../lib/core/ports.js";
import type { EventRecord } from "../../../lib/core/record.js";
import { mayRedrive } from "../../../lib/core/redrive-rule.js";
import { ALL_STATUSES, EventStatus } from "../../../lib/core/status.js";
import { anEventId, FIXED_NOW_MS } from "../../support/factories.js";
import { createTestTable, testClients } from "../../support/local-aws.js";

/*
 * The rules of the event store's writes are written twice: as pure functions of lib/core, which
 * the simulation's memory store runs, and as the condition expressions the DynamoDB store sends
 * (conditions.ts), which production runs. For generated records and writes, DynamoDB Local's
 * verdict on each write's real update under its real condition must equal the rule's, except in
 * the one place they differ on purpose (named below).
 */

const { documents } = testClients();
let context: StoreContext;

beforeAll(async () => {
  context = createStoreContext(documents, await createTestTable("claimrule"));
});

const NOW = FIXED_NOW_MS;
const DIGESTS = ["digest-a", "digest-b"] as const;

/** Where a record's lease ends, from the claim's point of view. */
const LEASE_ENDS = { none: undefined, expired: NOW - 1, now: NOW, live: NOW + 1 } as const;

/** A record's item as the table may hold it: only the fields the claim rule reads vary. */
const anItem = () =>
  fc.record({
    status: fc.constantFrom(...ALL_STATUSES),
    generation: fc.integer({ min: 0, max: 3 }),
    attempts: fc.constantFrom(0, 1, 2),
    leaseExpiresAt: fc.constantFrom(...Object.values(LEASE_ENDS)),
    envelopeDigest: fc.constantFrom(undefined, ...DIGESTS),
    deadLetterReason: fc.constantFrom(undefined, ...Object.values(DeadLetterReason)),
    /** An invalid envelope's placeholder stores none; one from an older release stored 0. */
    attemptBudget: fc.constantFrom(undefined, 0, 3),
  });

/** A claim at the record's generation give or take: where the rule draws its lines. */
const aClaim = () =>
  fc.record({
    generationDelta: fc.constantFrom(-1, 0, 1, 2),
    envelopeDigest: fc.constantFrom(...DIGESTS),
  });

const claimRequest = (
  eventId: string,
  generation: number,
  envelopeDigest: string,
): ClaimRequest => ({
  eventId,
  generation,
  envelopeDigest,
  worker: "worker-b",
  nowMs: NOW,
  leaseMs: 10_000,
  attemptBudget: 3,
  targetSummary: "http POST https://receiver.example.com/",
});

/** Without the `undefined` fields: DynamoDB stores no attribute for them. */
const stored = (eventId: string, item: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries({ ...item, eventId, updatedAt: new Date(NOW).toISOString() }).filter(
      ([, value]) => value !== undefined,
    ),
  );

/** Whether DynamoDB Local applied a write's real update under its real condition. */
const conditionAdmits = async (
  eventId: string,
  write: { readonly update: ExpressionPart; readonly condition: ExpressionPart },
): Promise<boolean> => {
  const answer = await updateRecord(context, "rule", { eventId, ...write });
  return answer.kind === "written";
};

/** A write the store makes under a condition, and the pure rule that condition states. */
interface RuledWrite {
  readonly write: (
    eventId: string,
    generation: number,
    digest: string,
  ) => { readonly update: ExpressionPart; readonly condition: ExpressionPart };
  readonly rule: (record: EventRecord | undefined, generation: number, digest: string) => boolean;
  /** Where the condition refuses on purpose what the rule admits: the stored item says it. */
  readonly intendedRefusal?: (item: Record<string, unknown>) => boolean;
}

const deferralRequest = (eventId: string, generation: number, digest: string) =>
  ({
    ...claimRequest(eventId, generation, digest),
    dueMs: NOW + 5_000,
    cause: DeferralCause.RATE_LIMIT,
    targetKey: "receiver.example.com",
  }) satisfies RecordDeferralRequest;

const redriveRequest = (eventId: string, generation: number): RedriveRecordRequest => ({
  eventId,
  generation,
  attemptBudget: 3,
  nowMs: NOW,
  audit: {
    at: new Date(NOW).toISOString(),
    by: "ops",
    reason: "test",
    previousStatus: EventStatus.DEAD_LETTERED,
    previousAttempts: 3,
    attemptBudget: 3,
  },
});

/**
 * The one intended difference: an invalid envelope's placeholder written by an older release
 * stored `attemptBudget` 0, and a claim over it would keep that budget; the condition can see
 * the stored attribute and refuses it, the pure rule (which reads a missing budget as 0 too)
 * cannot tell the two apart.
 */
const isOlderPlaceholder = (item: Record<string, unknown>): boolean =>
  item.attemptBudget !== undefined && isInvalidPlaceholder(itemToRecord(item));

const CLAIM: RuledWrite = {
  write: (eventId, generation, digest) => {
    const request = claimRequest(eventId, generation, digest);
    return { update: claimUpdate(request), condition: claimCondition(request) };
  },
  rule: (record, generation, digest) => mayClaim(record, generation, NOW, digest),
  intendedRefusal: (item) => isOlderPlaceholder(item),
};

const RULED_WRITES: Readonly<Record<string, RuledWrite>> = {
  "the claim (mayClaim)": CLAIM,
  "a deferral (mayRecordDeferral)": {
    write: (eventId, generation, digest) => {
      const request = deferralRequest(eventId, generation, digest);
      return { update: deferralUpdate(request), condition: deferralCondition(request) };
    },
    rule: (record, generation, digest) =>
      mayRecordDeferral(record, { generation, envelopeDigest: digest }),
  },
  "a redrive (mayRedrive)": {
    write: (eventId, generation) => {
      const request = redriveRequest(eventId, generation);
      return { update: redriveUpdate(request), condition: redriveCondition(request) };
    },
    rule: (record, generation) => mayRedrive(record, generation, NOW),
  },
};

describe("the conditions DynamoDB applies", () => {
  it.each(Object.entries(RULED_WRITES))(
    "admit %s exactly when its rule does, for any record",
    async (_name, { write, rule, intendedRefusal }) => {
      await fc.assert(
        fc.asyncProperty(
          fc.option(anItem(), { freq: 8, nil: undefined }),
          aClaim(),
          async (item, claim) => {
            const eventId = anEventId("claimrule");
            const recordItem = item === undefined ? undefined : stored(eventId, item);
            if (recordItem !== undefined)
              await documents.send(
                new PutCommand({ TableName: context.tableName, Item: recordItem }),
              );
            const generation = Math.max(0, (item?.generation ?? 0) + claim.generationDelta);
            const record = recordItem === undefined ? undefined : itemToRecord(recordItem);
            const admitted = rule(record, generation, claim.envelopeDigest);
            const intended = recordItem !== undefined && (intendedRefusal?.(recordItem) ?? false);
            const verdict = await conditionAdmits(
              eventId,
              write(eventId, generation, claim.envelopeDigest),
            );
            expect(verdict).toBe(admitted && !intended);
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it("refuses an older release's invalid-envelope placeholder, which mayClaim admits", async () => {
    const eventId = anEventId("claimrule");
    const placeholder = stored(eventId, {
      status: EventStatus.REJECTED,
      deadLetterReason: DeadLetterReason.INVALID_ENVELOPE,
      generation: 0,
      attempts: 0,
      attemptBudget: 0,
    });
    await documents.send(new PutCommand({ TableName: context.tableName, Item: placeholder }));
    expect(mayClaim(itemToRecord(placeholder), 0, NOW, "digest-a")).toBe(true);
    expect(await conditionAdmits(eventId, CLAIM.write(eventId, 0, "digest-a"))).toBe(false);
  });
});
