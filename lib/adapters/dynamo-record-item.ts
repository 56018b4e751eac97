import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import { DUE_INDEX, RECORD_KEY, STATUS_INDEX } from "../contract/record-table.js";
import type { Outcome } from "../core/outcome.js";
import {
  type AttemptEntry,
  type AuditEntry,
  type EventRecord,
  type LegacyCaller,
  MAX_AUDIT_ENTRIES,
  type RecordedCaller,
  type RedriveEntry,
} from "../core/record.js";
import type { EventStatus } from "../core/status.js";
import { currentAttemptFromItem, entryFromItem } from "./dynamo-compact-entry.js";

/**
 * The statuses an operator lists by index: the events that need a decision. Only records in
 * these statuses carry `listedStatus`, so the index is sparse: the hot path (pending, in flight,
 * retry scheduled, delivered) never writes to it. An index on `status` itself was rewritten by
 * every claim and every result — three of the five write units an event cost (benchmarked).
 */
export const LISTED_STATUSES: ReadonlySet<EventStatus> = new Set<EventStatus>([
  "dead_lettered",
  "rejected",
]);

/** The record table's keys and indexes, as CreateTable takes them (tests, chaos, benchmarks). */
export const recordTableDefinition = (tableName: string): CreateTableCommandInput => ({
  TableName: tableName,
  BillingMode: "PAY_PER_REQUEST",
  AttributeDefinitions: [
    { AttributeName: RECORD_KEY, AttributeType: "S" },
    { AttributeName: STATUS_INDEX.partitionKey, AttributeType: "S" },
    { AttributeName: STATUS_INDEX.sortKey, AttributeType: "S" },
    { AttributeName: DUE_INDEX.partitionKey, AttributeType: "S" },
    { AttributeName: DUE_INDEX.sortKey, AttributeType: "S" },
  ],
  KeySchema: [{ AttributeName: RECORD_KEY, KeyType: "HASH" }],
  GlobalSecondaryIndexes: [
    {
      IndexName: STATUS_INDEX.name,
      KeySchema: [
        { AttributeName: STATUS_INDEX.partitionKey, KeyType: "HASH" },
        { AttributeName: STATUS_INDEX.sortKey, KeyType: "RANGE" },
      ],
      Projection: { ProjectionType: "ALL" },
    },
    {
      IndexName: DUE_INDEX.name,
      KeySchema: [
        { AttributeName: DUE_INDEX.partitionKey, KeyType: "HASH" },
        { AttributeName: DUE_INDEX.sortKey, KeyType: "RANGE" },
      ],
      // Keys only: each index write is one unit whatever the record's size; a sweep reads the
      // few overdue candidates back consistently anyway.
      Projection: { ProjectionType: "KEYS_ONLY" },
    },
  ],
});

const optionalNumber = (value: unknown): number | undefined =>
  typeof value === "number" ? value : undefined;
const optionalString = (value: unknown): string | undefined =>
  typeof value === "string" ? value : undefined;

/** The outcome an entry records, as the record's `lastOutcome`. */
const outcomeOf = (entry: AttemptEntry | undefined): Outcome | undefined =>
  entry === undefined
    ? undefined
    : {
        class: entry.outcome,
        statusCode: entry.statusCode,
        errorCategory: entry.errorCategory as Outcome["errorCategory"],
        message: entry.message,
      };

/**
 * An item's redrive or audit entries, each `caller` in its structured form. Releases before the
 * structured caller stored it as one string (the ARN STS answered, or `unverified`), and entries
 * are only ever appended, so a record can hold both forms: the string is read here, where the
 * data enters, as a {@link LegacyCaller}, and no reader (the CLI, the console) meets a string.
 */
const entriesFromItem = <T extends { readonly caller?: RecordedCaller | undefined }>(
  entries: unknown,
): T[] | undefined => {
  if (!Array.isArray(entries)) return undefined;
  return entries.map((entry: Record<string, unknown>) => {
    if (typeof entry.caller !== "string") return entry as T;
    const caller: LegacyCaller = { recorded: entry.caller };
    return { ...entry, caller } as T;
  });
};

/**
 * Reads an item as a record. Items are only ever written by this store, so the shape is trusted;
 * missing lists and counters (an item written by an older release) read as empty, and an older
 * entry's string caller as its structured form.
 */
export const itemToRecord = (item: Record<string, unknown>): EventRecord => {
  const attempts = optionalNumber(item.attempts) ?? 0;
  const current = currentAttemptFromItem(item.currentAttempt);
  const history = Array.isArray(item.history)
    ? item.history.map((entry: Record<string, unknown>) => entryFromItem(entry))
    : [];
  return {
    eventId: String(item.eventId),
    status: item.status as EventStatus,
    generation: optionalNumber(item.generation) ?? 0,
    attempts,
    attemptBudget: optionalNumber(item.attemptBudget) ?? 0,
    leaseOwner: optionalString(item.leaseOwner),
    leaseExpiresAt: optionalNumber(item.leaseExpiresAt),
    currentAttempt: current === undefined ? undefined : { attempt: attempts, ...current },
    nextAttemptAt: optionalString(item.nextAttemptAt),
    deferral: item.deferral as EventRecord["deferral"],
    // Stored by older releases and by an invalid envelope's placeholder; otherwise the last entry's.
    lastOutcome: (item.lastOutcome as EventRecord["lastOutcome"]) ?? outcomeOf(history.at(-1)),
    lastDelaySeconds: optionalNumber(item.lastDelaySeconds),
    deadLetterReason: item.deadLetterReason as EventRecord["deadLetterReason"],
    pendingDeadLetter: item.pendingDeadLetter as EventRecord["pendingDeadLetter"],
    history,
    redrives: entriesFromItem<RedriveEntry>(item.redrives) ?? [],
    targetSummary: optionalString(item.targetSummary),
    targetGroup: optionalString(item.targetGroup),
    envelopeDigest: optionalString(item.envelopeDigest),
    conflicts:
      typeof item.conflictCount === "number"
        ? {
            count: item.conflictCount,
            lastAt: String(item.lastConflictAt ?? ""),
            lastDigest: String(item.lastConflictDigest ?? ""),
          }
        : undefined,
    audit: entriesFromItem<AuditEntry>(item.audit)?.slice(-MAX_AUDIT_ENTRIES),
    replays: optionalNumber(item.replays),
    policyAdjustments: Array.isArray(item.policyAdjustments)
      ? item.policyAdjustments.filter((entry): entry is string => typeof entry === "string")
      : undefined,
    // An invalid envelope's placeholder has no createdAt: no event was accepted under it yet.
    createdAt: String(item.createdAt ?? item.updatedAt ?? ""),
    updatedAt: String(item.updatedAt ?? ""),
    expiresAt: optionalNumber(item.expiresAt),
  };
};
