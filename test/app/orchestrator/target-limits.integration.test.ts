import { beforeAll, describe, expect, it } from "vitest";
import type { AwsClientMiddleware } from "../../../lib/adapters/aws-clients.js";
import { createDynamoTargetLimitsStore } from "../../../lib/adapters/dynamo-target-limits-store.js";
import {
  createTargetLimiter,
  type TargetLimiter,
} from "../../../lib/app/orchestrator/target-limits.js";
import { silentLog } from "../../../lib/core/observability.js";
import type { TargetLimitsStore } from "../../../lib/core/ports.js";
import { seededRandom } from "../../../lib/core/random.js";
import type { TargetLimits } from "../../../lib/core/target-settings.js";
import { anEventId, FIXED_NOW_MS } from "../../support/factories.js";
import { createTestTable, testClients } from "../../support/local-aws.js";

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

const instance = (
  limits: TargetLimits,
  clock: () => number,
  seed: number,
  through: TargetLimitsStore = store,
): TargetLimiter =>
  createTargetLimiter({
    store: through,
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
    // The counter is asked for 2, 4 and 8 (slow start): three counts for the ten calls.
    ["a rate limit: three writes (a count per doubling)", { maxCallsPerSecond: 1_000 }, 3],
    [
      "a concurrency limit: twenty writes (a slot taken and given back each)",
      { maxConcurrentCalls: 5 },
      20,
    ],
    ["both: twenty-three writes", { maxCallsPerSecond: 1_000, maxConcurrentCalls: 5 }, 23],
  ] as const)(
    "costs the ten uncontended calls after a first to a target with %s",
    async (_name, limits, expected) => {
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
      expect(writes.count - before).toBe(expected);
    },
  );

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

  it("holds the rate limit across instances: at most the limit in each window the counter holds, none counted into a second before its asking", async () => {
    const limit = 5;
    const key = anEventId("group:rated");
    /** One admission: the clock reading it asked under and the window the store counted it in. */
    type Counted = { readonly askedAt: number; readonly windowStartMs: number };
    const admitted: Counted[] = [];
    const deferredTo: number[] = [];
    const until = Date.now() + 3_500;
    // Eight instances, each asking as fast as the store answers: far above the limit. Each has its
    // own view of the store so that an admission is paired with the window it was counted in — a
    // reading late in one second may be counted into the next, when another instance has already
    // moved the counter there (the skew the preceding test pins down), so the reading's own second
    // is not the window to judge it by.
    const asker = async (seed: number) => {
      let last: Counted = { askedAt: 0, windowStartMs: 0 };
      const seen: TargetLimitsStore = {
        ...store,
        countCall: async (k, windowStartMs, nowMs, calls) => {
          const counted = await store.countCall(k, windowStartMs, nowMs, calls);
          last = { askedAt: nowMs, windowStartMs: counted.windowStartMs };
          return counted;
        },
      };
      const x = instance({ maxCallsPerSecond: limit }, Date.now, seed, seen);
      while (Date.now() < until) {
        const admission = await x.admit(key, LEASE_MS);
        if (admission.verdict === "call") admitted.push(last);
        else deferredTo.push(admission.untilMs);
      }
    };
    await Promise.all([9, 10, 11, 12, 13, 14, 15, 16].map(asker));

    const perWindow = new Map<number, number>();
    for (const { windowStartMs } of admitted) {
      perWindow.set(windowStartMs, (perWindow.get(windowStartMs) ?? 0) + 1);
    }
    const earliestWindowOfReading = Math.min(
      ...admitted.map(
        ({ askedAt, windowStartMs }) => windowStartMs - Math.floor(askedAt / 1000) * 1000,
      ),
    );
    console.info(
      `rate limit ${limit}/s over ${admitted.length + deferredTo.length} requests: ` +
        `${admitted.length} admitted in ${perWindow.size} windows; most in one window ` +
        `${Math.max(...perWindow.values())}`,
    );
    expect(Math.max(...perWindow.values())).toBeLessThanOrEqual(limit);
    expect(earliestWindowOfReading).toBeGreaterThanOrEqual(0);
    expect(admitted.length).toBeGreaterThanOrEqual(3 * limit);
    expect(deferredTo.length).toBeGreaterThan(0);
    expect(Math.min(...deferredTo)).toBeGreaterThan(Math.min(...admitted.map((a) => a.askedAt)));
  }, 20_000);
});
