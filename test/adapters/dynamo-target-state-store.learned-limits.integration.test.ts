import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { learnedAttributeOf } from "../../lib/adapters/dynamo-learned-entries.js";
import {
  createDynamoTargetStateStore,
  TARGET_ITEM_PREFIX,
} from "../../lib/adapters/dynamo-target-state-store.js";
import { LimitChange } from "../../lib/core/adaptive-limit.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import {
  LEARNED_ENTRY_STALE_MS,
  type LearnedLimitEntry,
  MAX_LEARNED_ENTRIES,
} from "../../lib/core/learned-limits.js";
import type { TargetStateStore } from "../../lib/core/ports.js";
import { targetReport } from "../../lib/core/target-report.js";
import { FIXED_NOW_MS } from "../support/factories.js";
import { createTestTable, testClients } from "../support/local-aws.js";

/*
 * The instances' learned limits on the targets' items in DynamoDB Local (issue #35): each write
 * lands in its own attribute and reads back in the listing, the report sums the fresh ones, and
 * the writers keep the item to its bound.
 */

let store: TargetStateStore;
let tableName: string;

beforeAll(async () => {
  tableName = await createTestTable("learned");
  store = createDynamoTargetStateStore({ doc: testClients().documents, tableName });
});

let targets = 0;
const aTarget = () => {
  targets += 1;
  return `http:https://learned-${targets}.example:443`;
};

const entry = (
  instanceId: string,
  callsPerSecond: number,
  writtenAtMs = FIXED_NOW_MS,
): LearnedLimitEntry => ({
  instanceId,
  callsPerSecond,
  ceilingPerSecond: 100,
  maxConcurrentCalls: 4,
  reason: LimitChange.OVERLOAD,
  changedAtMs: writtenAtMs - 500,
  writtenAtMs,
});

const write = (key: string, learned: LearnedLimitEntry, nowMs = learned.writtenAtMs) =>
  store.writeLearnedLimit({ key, instanceId: learned.instanceId, entry: learned, nowMs });

const listedOf = async (key: string) => (await store.list(1_000)).find((t) => t.key === key);

const reportOf = async (key: string, nowMs: number) => {
  const listed = await listedOf(key);
  if (listed === undefined) throw new Error(`${key} is not listed`);
  return targetReport(listed, nowMs, DEFAULT_BREAKER_SETTINGS.windowMs);
};

describe("learned limits on the targets' items", () => {
  it("lists a target once an instance wrote its learned limit, with the entry read back", async () => {
    const key = aTarget();
    await write(key, entry("w-a", 18));
    const listed = await listedOf(key);
    expect(listed?.learned).toEqual([entry("w-a", 18)]);
    expect(listed?.version).toBe(0); // no breaker was made
    expect((await reportOf(key, FIXED_NOW_MS)).learned).toEqual({
      callsPerSecond: 18,
      instances: 1,
      ceilingPerSecond: 100,
      maxConcurrentCalls: 4,
      reason: LimitChange.OVERLOAD,
      changedAt: new Date(FIXED_NOW_MS - 500).toISOString(),
    });
  });

  it("reads back an entry's refusal counts, to a tenth", async () => {
    const key = aTarget();
    const refusals = {
      lockoutCalls: 120.04,
      lockoutRefused: 6.26,
      afterCalls: 300,
      afterRefused: 0,
    };
    await write(key, { ...entry("w-a", 18), refusals });
    const [read] = (await listedOf(key))?.learned ?? [];
    expect(read?.refusals).toEqual({
      lockoutCalls: 120,
      lockoutRefused: 6.3,
      afterCalls: 300,
      afterRefused: 0,
    });
  });

  it("shows two instances' entries both, summed", async () => {
    const key = aTarget();
    await write(key, entry("w-a", 18));
    await write(key, entry("w-b", 7, FIXED_NOW_MS + 1_000));
    expect((await listedOf(key))?.learned).toHaveLength(2);
    const { learned } = await reportOf(key, FIXED_NOW_MS + 1_000);
    expect(learned).toMatchObject({ callsPerSecond: 25, instances: 2, maxConcurrentCalls: 8 });
  });

  it("answers each write with the other instances' entries, its own and the stale left out", async () => {
    const key = aTarget();
    expect(await write(key, entry("w-old", 30))).toEqual([]);
    const later = FIXED_NOW_MS + LEARNED_ENTRY_STALE_MS + 1;
    expect(await write(key, entry("w-a", 18, later))).toEqual([]);
    expect(await write(key, entry("w-b", 7, later + 1_000))).toEqual([entry("w-a", 18, later)]);
    expect(await write(key, entry("w-a", 12, later + 2_000))).toEqual([
      entry("w-b", 7, later + 1_000),
    ]);
  });

  it("replaces an instance's own entry, and removes it when the instance is back at its ceiling", async () => {
    const key = aTarget();
    await write(key, entry("w-a", 18));
    await write(key, entry("w-a", 12, FIXED_NOW_MS + 5_000));
    expect((await listedOf(key))?.learned?.map((e) => e.callsPerSecond)).toEqual([12]);
    await store.writeLearnedLimit({
      key,
      instanceId: "w-a",
      entry: undefined,
      nowMs: FIXED_NOW_MS + 10_000,
    });
    expect((await listedOf(key))?.learned).toEqual([]);
    expect((await reportOf(key, FIXED_NOW_MS + 10_000)).learned).toBeUndefined();
  });

  it("ignores a stale entry when reading, and prunes it at the next write", async () => {
    const key = aTarget();
    await write(key, entry("w-old", 30));
    const later = FIXED_NOW_MS + LEARNED_ENTRY_STALE_MS + 1;
    expect((await reportOf(key, later)).learned).toBeUndefined();

    await write(key, entry("w-new", 5, later));
    expect((await reportOf(key, later)).learned).toMatchObject({ callsPerSecond: 5, instances: 1 });
    expect((await listedOf(key))?.learned?.map((e) => e.instanceId)).toEqual(["w-new"]);
  });

  it("keeps the item to the entry cap, dropping the oldest written", async () => {
    const key = aTarget();
    for (let i = 0; i <= MAX_LEARNED_ENTRIES; i += 1)
      await write(key, entry(`w-${String(i).padStart(2, "0")}`, 1, FIXED_NOW_MS + i));
    const learned = (await listedOf(key))?.learned ?? [];
    expect(learned).toHaveLength(MAX_LEARNED_ENTRIES);
    expect(learned.map((e) => e.instanceId)).not.toContain("w-00");
    const { Item } = await testClients().documents.send(
      new GetCommand({ TableName: tableName, Key: { eventId: `${TARGET_ITEM_PREFIX}${key}` } }),
    );
    expect(Item?.[learnedAttributeOf("w-00")]).toBeUndefined();
  });

  it("keeps the entries through a breaker's writes, and the breaker through theirs", async () => {
    const key = aTarget();
    await write(key, entry("w-a", 18));
    await store.countFailure({
      key,
      successes: 3,
      failures: 1,
      windowStartMs: FIXED_NOW_MS,
      nowMs: FIXED_NOW_MS,
    });
    await write(key, entry("w-b", 2));
    const listed = await listedOf(key);
    expect(listed?.breaker).toMatchObject({ calls: 4, failures: 1 });
    expect(listed?.learned).toHaveLength(2);
  });
});
