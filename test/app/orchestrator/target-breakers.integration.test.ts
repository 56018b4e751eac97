import { beforeAll, describe, expect, it } from "vitest";
import { createDynamoEventStore } from "../../../lib/adapters/dynamo-event-store.js";
import { createDynamoTargetStateStore } from "../../../lib/adapters/dynamo-target-state-store.js";
import {
  createTargetBreakers,
  type TargetBreakers,
} from "../../../lib/app/orchestrator/target-breakers.js";
import { FAILURE_FLUSH_MS } from "../../../lib/core/breaker-cache.js";
import {
  type BreakerSettings,
  DEFAULT_BREAKER_SETTINGS,
} from "../../../lib/core/circuit-breaker.js";
import { silentLog } from "../../../lib/core/observability.js";
import { DEFERRAL_FLUSH_MS } from "../../../lib/core/pending-deferrals.js";
import type { TargetStateStore } from "../../../lib/core/ports.js";
import { ALL_STATUSES } from "../../../lib/core/status.js";
import { MAX_TARGET_ERROR_LENGTH } from "../../../lib/core/target-view.js";
import { anEventId, FIXED_NOW_MS } from "../../support/factories.js";
import { createTestTable, testClients } from "../../support/local-aws.js";

/*
 * Two instances sharing targets' breakers through DynamoDB Local, each with its own cache and an
 * injected clock: what each learns, when, and what it costs.
 */
const settings: BreakerSettings = {
  ...DEFAULT_BREAKER_SETTINGS,
  minimumCalls: 4,
  failureRateThreshold: 0.5,
  openMs: 30_000,
  probeWaitMs: 5_000,
};

let store: TargetStateStore;
const writes = { count: 0 };

beforeAll(async () => {
  const tableName = await createTestTable("breakers");
  const real = createDynamoTargetStateStore({ doc: testClients().documents, tableName });
  // Counts what reaches the store, to show what the success path does not cost.
  store = {
    countFailure: (request) => {
      writes.count += 1;
      return real.countFailure(request);
    },
    replace: (request) => {
      writes.count += 1;
      return real.replace(request);
    },
    addDeferrals: (key, count, nowMs) => {
      writes.count += 1;
      return real.addDeferrals(key, count, nowMs);
    },
    get: (key) => real.get(key),
    list: (limit) => real.list(limit),
    writeLearnedLimit: (write) => {
      writes.count += 1;
      return real.writeLearnedLimit(write);
    },
  };
});

/** Two instances and the clock they share. */
const twoInstances = () => {
  const clock = { now: FIXED_NOW_MS };
  const instance = (): TargetBreakers =>
    createTargetBreakers({ store, settings, clock: () => clock.now, log: silentLog });
  return { a: instance(), b: instance(), clock };
};

/**
 * `times` failures, the last a flush interval after the first: an instance that has just begun
 * counting a target holds its failures that long, whatever they say, and writes them then.
 */
const failTimes = async (
  breakers: TargetBreakers,
  key: string,
  times: number,
  clock: { now: number },
) => {
  for (let i = 0; i < times; i += 1) {
    if (i === times - 1) clock.now += FAILURE_FLUSH_MS;
    await breakers.recordCall(key, true, "call");
  }
};

/** A failure by an instance new to the target, and the one a flush interval later that writes both. */
const failAndWrite = async (breakers: TargetBreakers, key: string, clock: { now: number }) =>
  failTimes(breakers, key, 2, clock);

describe("target breakers shared between instances", () => {
  it("costs no store write for successful calls through a closed breaker", async () => {
    const { a } = twoInstances();
    const key = anEventId("http:https://healthy.example:443");
    const before = writes.count;
    for (let i = 0; i < 50; i += 1) {
      expect(await a.admit(key)).toEqual({ verdict: "call" });
      await a.recordCall(key, false, "call");
    }
    expect(writes.count).toBe(before);
  });

  it("opens for everyone once the shared failure rate trips it, each instance learning at its own failure", async () => {
    const { a, b, clock } = twoInstances();
    const key = anEventId("http:https://down.example:443");
    await failTimes(a, key, settings.minimumCalls, clock);

    expect(await a.admit(key)).toMatchObject({
      verdict: "defer",
      untilMs: clock.now + settings.openMs,
    });
    // B has seen nothing yet: its failures, once it writes them, tell it.
    expect(await b.admit(key)).toEqual({ verdict: "call" });
    await failAndWrite(b, key, clock);
    expect((await b.admit(key)).verdict).toBe("defer");
  });

  it("lets exactly one instance probe after the open time, and the probe's success closes it for both", async () => {
    const { a, b, clock } = twoInstances();
    const key = anEventId("http:https://recovering.example:443");
    await failTimes(a, key, settings.minimumCalls, clock);
    await failAndWrite(b, key, clock);

    clock.now += settings.openMs;
    const asked = [
      { instance: a, verdict: (await a.admit(key)).verdict },
      { instance: b, verdict: (await b.admit(key)).verdict },
    ];
    expect(asked.map((x) => x.verdict).sort()).toEqual(["defer", "probe"]);
    const prober = asked.find((x) => x.verdict === "probe")?.instance ?? a;
    const other = prober === a ? b : a;

    await prober.recordCall(key, false, "probe");
    expect(await prober.admit(key)).toEqual({ verdict: "call" });
    clock.now += settings.probeWaitMs;
    // The other's cache still says half-open; its attempt to probe finds the breaker closed.
    expect(await other.admit(key)).toEqual({ verdict: "call" });
    expect((await store.get(key))?.breaker.state).toBe("closed");
  });

  it("releases the events it defers to one reopen time at releasePerSecond, not all at once", async () => {
    const { a, clock } = twoInstances();
    const key = anEventId("http:https://backlog.example:443");
    await failTimes(a, key, settings.minimumCalls, clock);
    const reopenAt = clock.now + settings.openMs;

    const due = [];
    for (let i = 0; i < 3; i += 1) {
      const verdict = await a.admit(key);
      due.push(verdict.verdict === "defer" ? verdict.untilMs - reopenAt : undefined);
    }
    expect(due).toEqual([0, 1000 / settings.releasePerSecond, 2000 / settings.releasePerSecond]);
  });

  it("releases the events a half-open breaker turns away at releasePerSecond too, however close together they came", async () => {
    const { a, clock } = twoInstances();
    const key = anEventId("http:https://probing.example:443");
    await failTimes(a, key, settings.minimumCalls, clock);
    clock.now += settings.openMs;
    expect((await a.admit(key)).verdict).toBe("probe");
    const firstDue = clock.now + settings.probeWaitMs;

    const due = [];
    for (let i = 0; i < 3; i += 1) {
      clock.now += 1;
      const verdict = await a.admit(key);
      due.push(verdict.verdict === "defer" ? verdict.untilMs - firstDue : undefined);
    }
    const spacing = 1000 / settings.releasePerSecond;
    expect(due).toEqual([1, spacing + 1, 2 * spacing + 1]);
  });

  it("holds each target to its own settings when they are given per key", async () => {
    const clock = { now: FIXED_NOW_MS };
    const touchy = anEventId("group:touchy");
    const sturdy = anEventId("group:sturdy");
    const perKey = createTargetBreakers({
      store,
      settings,
      settingsFor: (key) => (key === touchy ? { ...settings, minimumCalls: 2 } : settings),
      clock: () => clock.now,
      log: silentLog,
    });
    await failTimes(perKey, touchy, 2, clock);
    await failTimes(perKey, sturdy, 2, clock);

    expect((await perKey.admit(touchy)).verdict).toBe("defer");
    expect(await perKey.admit(sturdy)).toEqual({ verdict: "call" });
  });

  it("reopens for twice as long when the probe fails", async () => {
    const { a, clock } = twoInstances();
    const key = anEventId("http:https://still-down.example:443");
    await failTimes(a, key, settings.minimumCalls, clock);
    clock.now += settings.openMs;
    expect((await a.admit(key)).verdict).toBe("probe");

    await a.recordCall(key, true, "probe");

    expect(await a.admit(key)).toMatchObject({
      verdict: "defer",
      untilMs: clock.now + 2 * settings.openMs,
    });
  });

  it("counts a failure from a clock a window behind into the window the item holds", async () => {
    const key = anEventId("http:https://skewed.example:443");
    const windowMs = settings.windowMs;
    const count = (windowStartMs: number) =>
      store.countFailure({ key, successes: 0, failures: 1, windowStartMs, nowMs: windowStartMs });
    await count(FIXED_NOW_MS + windowMs);

    const late = await count(FIXED_NOW_MS);

    expect(late.breaker).toMatchObject({
      windowStartMs: FIXED_NOW_MS + windowMs,
      calls: 2,
      failures: 2,
    });
  });

  it("counts the successes an instance saw when it writes a failure, so a mostly healthy target stays closed", async () => {
    const { a, clock } = twoInstances();
    const key = anEventId("http:https://mostly-fine.example:443");
    for (let i = 0; i < 10; i += 1) {
      await a.recordCall(key, false, "call");
      await a.recordCall(key, false, "call");
      await a.recordCall(key, true, "call");
      clock.now += FAILURE_FLUSH_MS;
    }
    expect(await a.admit(key)).toEqual({ verdict: "call" });
    expect((await store.get(key))?.breaker).toMatchObject({ calls: 30, failures: 10 });
  });

  it("holds the failures of a busy target in memory and writes them together once per flush interval, with the latest error", async () => {
    const { a, clock } = twoInstances();
    const key = anEventId("http:https://flaky.example:443");
    const before = writes.count;
    // 30% failures: never trips, and the failures of one interval cost one write.
    const interval = async (from: number) => {
      for (let i = from; i < from + 10; i += 1) {
        await a.recordCall(key, false, "call");
        await a.recordCall(key, false, "call");
        await a.recordCall(key, true, "call", `HTTP 503: failure ${i}`);
        clock.now += 1;
      }
    };
    await interval(0);
    // Its first interval: held, whatever they say (the instance has just begun counting).
    expect(writes.count - before).toBe(0);
    clock.now += FAILURE_FLUSH_MS;
    await interval(10);
    expect(writes.count - before).toBe(1);
    expect((await store.get(key))?.breaker).toMatchObject({ calls: 33, failures: 11 });

    clock.now += FAILURE_FLUSH_MS;
    await a.recordCall(key, true, "call", "HTTP 503: the latest");
    expect(writes.count - before).toBe(2);
    const stored = await store.get(key);
    expect(stored?.breaker).toMatchObject({ calls: 61, failures: 21, state: "closed" });
    expect(stored?.notes?.lastError).toBe("HTTP 503: the latest");
  });

  it("writes held failures at once when they would trip the breaker, even within the interval", async () => {
    const { a, clock } = twoInstances();
    const key = anEventId("http:https://suddenly-down.example:443");
    // A call, then a failure a flush interval later, written: the instance has counted a while.
    await a.recordCall(key, false, "call");
    clock.now += FAILURE_FLUSH_MS;
    await a.recordCall(key, true, "call");
    const failing = Array.from({ length: settings.minimumCalls }, () =>
      a.recordCall(key, true, "call"),
    );
    await Promise.all(failing);
    expect((await a.admit(key)).verdict).toBe("defer");
    expect((await store.get(key))?.breaker).toMatchObject({
      state: "open",
      failures: 1 + settings.minimumCalls,
    });
  });

  it("keeps the last failure's redacted excerpt on the write that counts it, with no write of its own", async () => {
    const { a, clock } = twoInstances();
    const key = anEventId("http:https://leaky.example:443");
    await a.recordCall(key, false, "call");
    clock.now += FAILURE_FLUSH_MS; // past the first interval: a failure is written at once
    const before = writes.count;

    await a.recordCall(key, true, "call", `HTTP 503: token Bearer s3cr3t-value ${"x".repeat(300)}`);

    expect(writes.count - before).toBe(1);
    const notes = (await store.get(key))?.notes;
    expect(notes?.lastError).toMatch(/^HTTP 503: token Bearer \[redacted\] x+…$/);
    expect(notes?.lastError).toHaveLength(MAX_TARGET_ERROR_LENGTH);
    expect(notes?.lastErrorAtMs).toBe(clock.now);
  });

  it("stamps when an outage began and ended: a failed probe's reopening keeps the start", async () => {
    const { a, clock } = twoInstances();
    const key = anEventId("http:https://flapping.example:443");
    await failTimes(a, key, settings.minimumCalls, clock);
    const openedAt = clock.now;
    clock.now += settings.openMs;
    await a.admit(key);
    await a.recordCall(key, true, "probe", "HTTP 502");
    expect((await store.get(key))?.notes).toMatchObject({ openedAtMs: openedAt });

    clock.now += 2 * settings.openMs;
    await a.admit(key);
    await a.recordCall(key, false, "probe");

    const stored = await store.get(key);
    expect(stored?.breaker.state).toBe("closed");
    expect(stored?.notes).toMatchObject({
      openedAtMs: openedAt,
      closedAtMs: clock.now,
      lastError: "HTTP 502",
    });
  });

  it("counts deferrals in memory and writes them at most once per flush interval", async () => {
    const { a, b, clock } = twoInstances();
    const key = anEventId("http:https://busy-and-down.example:443");
    await failTimes(a, key, settings.minimumCalls, clock);
    await failAndWrite(b, key, clock);
    const before = writes.count;

    for (let i = 0; i < 50; i += 1) await a.admit(key);
    for (let i = 0; i < 20; i += 1) await b.admit(key);
    // The first deferral of each instance is written at once; the rest wait.
    expect(writes.count - before).toBe(2);
    expect((await store.get(key))?.notes?.deferred).toBe(2);

    clock.now += DEFERRAL_FLUSH_MS;
    await a.admit(key);
    await b.admit(key);
    expect(writes.count - before).toBe(4);
    expect((await store.get(key))?.notes?.deferred).toBe(72);
  });

  it("carries the unwritten deferrals on the probe's write and starts the count over at the next outage", async () => {
    const { a, clock } = twoInstances();
    const key = anEventId("http:https://comes-back.example:443");
    await failTimes(a, key, settings.minimumCalls, clock);
    for (let i = 0; i < 5; i += 1) await a.admit(key);
    clock.now += settings.openMs;
    expect((await a.admit(key)).verdict).toBe("probe");
    expect((await store.get(key))?.notes?.deferred).toBe(5);
    await a.recordCall(key, false, "probe");

    clock.now += settings.windowMs;
    await failTimes(a, key, settings.minimumCalls, clock);
    expect((await store.get(key))?.notes?.deferred).toBe(0);
  });
});

describe("listing targets", () => {
  it("lists every target with an item from the status index, most recently written first, and no status listing returns them", async () => {
    const tableName = await createTestTable("target-list");
    const real = createDynamoTargetStateStore({ doc: testClients().documents, tableName });
    const clock = { now: FIXED_NOW_MS };
    const breakers = createTargetBreakers({
      store: real,
      settings,
      clock: () => clock.now,
      log: silentLog,
    });
    const keys = ["http:https://a.example:443", "group:tenant-7", "lambda:notify"];
    // Each key's first failure is held for the instance's first interval; the next writes both.
    for (const key of keys) await breakers.recordCall(key, true, "call", "an early failure");
    for (const key of keys) {
      clock.now += FAILURE_FLUSH_MS;
      await breakers.recordCall(key, true, "call", `failed at ${key}`);
    }

    const listed = await real.list(10);

    expect(listed.map((t) => t.key)).toEqual([
      "lambda:notify",
      "group:tenant-7",
      "http:https://a.example:443",
    ]);
    expect(listed[0]).toMatchObject({
      breaker: { state: "closed", calls: 2, failures: 2 },
      notes: { lastError: "failed at lambda:notify" },
      updatedAt: new Date(clock.now).toISOString(),
    });
    expect(await real.list(2)).toHaveLength(2);
    const events = createDynamoEventStore({ doc: testClients().documents, tableName });
    for (const status of ALL_STATUSES) {
      expect((await events.listByStatus({ status, limit: 10 })).records).toEqual([]);
    }
  });
});
