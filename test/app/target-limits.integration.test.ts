import { beforeAll, describe, expect, it } from "vitest";
import type { AwsClientMiddleware } from "../../lib/adapters/aws-clients.js";
import { createDynamoTargetLimitsStore } from "../../lib/adapters/dynamo-target-limits-store.js";
import { createTargetLimiter, type TargetLimiter } from "../../lib/app/target-limits.js";
import { silentLog } from "../../lib/core/observability.js";
import type { TargetLimitsStore } from "../../lib/core/ports.js";
import { seededRandom } from "../../lib/core/random.js";
import type { TargetLimits } from "../../lib/core/target-settings.js";
import { anEventId, FIXED_NOW_MS } from "../support/factories.js";
import { createTestTable, testClients } from "../support/local-aws.js";

/*
 * Two instances sharing targets' limits through DynamoDB Local, each with its own count of the
 * slots it holds: what the limits let through, and their tolerance measured on real time.
 */
let store: TargetLimitsStore;
/** DynamoDB writes on the wire, refused conditions included (they cost a write too). */
const writes = { count: 0 };
const WRITES = new Set(["PutItem", "UpdateItem", "DeleteItem"]);
const countWrites: AwsClientMiddleware = {
  name: "count-dynamodb-writes",
  middleware: (next) => async (args) => {
    const target = (args.request as { headers?: Record<string, string> }).headers?.["x-amz-target"];
    if (WRITES.has(target?.split(".")[1] ?? "")) writes.count += 1;
    return next(args);
  },
};

beforeAll(async () => {
  const tableName = await createTestTable("limits");
  const { documents } = testClients({ middleware: [countWrites] });
  store = createDynamoTargetLimitsStore({ doc: documents, tableName });
});

const instance = (limits: TargetLimits, clock: () => number, seed: number): TargetLimiter =>
  createTargetLimiter({
    store,
    limitsFor: () => limits,
    clock,
    random: seededRandom(seed),
    log: silentLog,
    instanceId: `instance-${seed}`,
  });

const LEASE_MS = 10_000;

describe("target limits shared between instances", () => {
  it("costs no store call for a target without limits", async () => {
    const a = instance({}, Date.now, 1);
    const before = writes.count;
    for (let i = 0; i < 20; i += 1) {
      const admission = await a.admit(anEventId("group:free"), LEASE_MS);
      expect(admission.verdict).toBe("call");
      if (admission.verdict === "call") await admission.permit.release();
    }
    expect(writes.count).toBe(before);
  });

  it.each([
    ["a rate limit: one write (the count)", { maxCallsPerSecond: 1_000 }, 1],
    ["a concurrency limit: two writes (a slot taken and given back)", { maxConcurrentCalls: 5 }, 2],
    ["both: three writes", { maxCallsPerSecond: 1_000, maxConcurrentCalls: 5 }, 3],
  ] as const)("costs each uncontended call to a target with %s", async (_name, limits, perCall) => {
    // One rate window throughout: starting a window costs two writes more, once a second.
    const a = instance(limits, () => FIXED_NOW_MS, 11);
    const key = anEventId("group:cost");
    const call = async () => {
      const admission = await a.admit(key, LEASE_MS);
      expect(admission.verdict).toBe("call");
      if (admission.verdict === "call") await admission.permit.release();
    };
    await call();
    const before = writes.count;
    for (let i = 0; i < 10; i += 1) await call();
    expect(writes.count - before).toBe(10 * perCall);
  });

  it("lets no more than maxConcurrentCalls hold a slot across two instances, and a released slot serves the next", async () => {
    const clock = { now: FIXED_NOW_MS };
    const limits = { maxConcurrentCalls: 2 };
    const [a, b] = [instance(limits, () => clock.now, 2), instance(limits, () => clock.now, 3)];
    const key = anEventId("group:capped");

    const asked = await Promise.all([a, b, a, b, a, b].map((x) => x.admit(key, LEASE_MS)));

    const admitted = asked.flatMap((x) => (x.verdict === "call" ? [x.permit] : []));
    expect(admitted).toHaveLength(2);
    for (const x of asked) {
      if (x.verdict === "defer") {
        expect(x.limit).toBe("concurrency");
        expect(x.untilMs - clock.now).toBeGreaterThanOrEqual(1_000);
      }
    }
    await admitted[0]?.release();
    expect((await b.admit(key, LEASE_MS)).verdict).toBe("call");
    expect((await a.admit(key, LEASE_MS)).verdict).toBe("defer");
  });

  it("takes over a slot whose holder never gave it back once its lease has lapsed", async () => {
    const clock = { now: FIXED_NOW_MS };
    const limits = { maxConcurrentCalls: 1 };
    const key = anEventId("group:crashed-holder");
    const crashed = instance(limits, () => clock.now, 4);
    const b = instance(limits, () => clock.now, 5);
    expect((await crashed.admit(key, LEASE_MS)).verdict).toBe("call");

    clock.now += LEASE_MS - 1;
    expect((await b.admit(key, LEASE_MS)).verdict).toBe("defer");
    clock.now += 2;
    expect((await b.admit(key, LEASE_MS)).verdict).toBe("call");
  });

  it("gives a lapsed lease's late release no power over the slot's new holder", async () => {
    const clock = { now: FIXED_NOW_MS };
    const limits = { maxConcurrentCalls: 1 };
    const key = anEventId("group:late-release");
    const slow = instance(limits, () => clock.now, 6);
    const b = instance(limits, () => clock.now, 7);
    const first = await slow.admit(key, LEASE_MS);
    clock.now += LEASE_MS + 1;
    expect((await b.admit(key, LEASE_MS)).verdict).toBe("call");

    if (first.verdict === "call") await first.permit.release();

    expect((await instance(limits, () => clock.now, 8).admit(key, LEASE_MS)).verdict).toBe("defer");
  });

  it("counts a call from a clock a window behind into the window the counter holds", async () => {
    const key = anEventId("group:skewed");
    await store.countCall(key, FIXED_NOW_MS + 1_000, FIXED_NOW_MS + 1_000);
    expect(await store.countCall(key, FIXED_NOW_MS, FIXED_NOW_MS)).toEqual({
      windowStartMs: FIXED_NOW_MS + 1_000,
      count: 2,
    });
  });

  it("holds the rate limit across two instances: at most the limit in any aligned second, under twice it in any sliding second (measured)", async () => {
    const limit = 5;
    const key = anEventId("group:rated");
    // Each admission is timed by the clock reading it was counted under (the window is that
    // reading's second), not by when the store answered: under load an answer comes hundreds
    // of ms later and would land a window's admissions in the next second.
    let lastReading = 0;
    const clock = () => {
      lastReading = Date.now();
      return lastReading;
    };
    const [a, b] = [
      instance({ maxCallsPerSecond: limit }, clock, 9),
      instance({ maxCallsPerSecond: limit }, clock, 10),
    ];
    const admittedAt: number[] = [];
    const deferredTo: number[] = [];
    const until = Date.now() + 3_500;
    // Each instance asks as fast as the store answers, four at a time: far above the limit.
    const asker = async (x: TargetLimiter) => {
      while (Date.now() < until) {
        const asking = x.admit(key, LEASE_MS);
        // admit reads the clock before its first await, so this is its own reading.
        const askedAt = lastReading;
        const admission = await asking;
        if (admission.verdict === "call") admittedAt.push(askedAt);
        else deferredTo.push(admission.untilMs);
      }
    };
    await Promise.all([a, b, a, b, a, b, a, b].map(asker));

    const perSecond = new Map<number, number>();
    for (const t of admittedAt) {
      const second = Math.floor(t / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    const sorted = [...admittedAt].sort((x, y) => x - y);
    const sliding = Math.max(
      ...sorted.map((t, i) => sorted.filter((u, j) => j >= i && u < t + 1_000).length),
    );
    console.info(
      `rate limit ${limit}/s over ${admittedAt.length + deferredTo.length} requests: ` +
        `${admittedAt.length} admitted; most in an aligned second ${Math.max(...perSecond.values())}, ` +
        `in a sliding second ${sliding}`,
    );
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(limit);
    expect(sliding).toBeLessThanOrEqual(2 * limit);
    expect(admittedAt.length).toBeGreaterThanOrEqual(3 * limit);
    expect(deferredTo.length).toBeGreaterThan(0);
    expect(Math.min(...deferredTo)).toBeGreaterThan(Math.min(...admittedAt));
  }, 20_000);
});
