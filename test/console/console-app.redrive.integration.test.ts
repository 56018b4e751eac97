import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleGet, postRedrive } from "../support/console-client.js";
import { ANA_CALLER, countingCallerIdentity } from "../support/counting-caller-identity.js";
import { deadLetterEvent } from "../support/dead-letter-fixture.js";
import { pollUntil } from "../support/poll-until.js";
import { type ConsoleWorld, startConsoleWorld } from "./console-world.js";

/*
 * A redrive longer than the post's answer: the console answers with the redrive's page, which
 * follows it to its report, over real HTTP against the emulators.
 */

let world: ConsoleWorld;

beforeAll(async () => {
  // The caller lookup, made once before the first move, takes 5 s: the redrive outlasts the
  // post's 2 s wait by 3 s however fast the moves are.
  world = await startConsoleWorld("console-redrive", {
    callerIdentity: countingCallerIdentity(async () => {
      await sleep(5_000);
      return ANA_CALLER;
    }).identity,
  });
});
afterAll(() => world?.console.close());

const post = (fields: Record<string, string>) => postRedrive(world.console.url, fields);

describe("a console redrive that outlasts its request", () => {
  it("answers with the running redrive's page, refuses a second meanwhile, and shows the report once done", async () => {
    const { store, deadLetterQueue } = world.deps;
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1)
      ids.push((await deadLetterEvent(store, deadLetterQueue)).eventId);

    const started = await post({ eventIds: ids.join(" "), why: "outage over", confirm: "yes" });
    expect(started.status).toBe(200);
    const page = await started.text();
    expect(page).toContain('data-state="running"');
    expect(page).toMatch(/Moving: 0 of 3 handled|Reading the dead-letter queue|Starting/);
    const jobPath = new URL(started.url).pathname + new URL(started.url).search;

    const second = await post({ eventIds: ids[0] ?? "", confirm: "yes" });
    expect(second.status).toBe(409);
    expect(await second.text()).toContain("Another redrive is still running");

    const done = await pollUntil(
      async () => {
        const response = await consoleGet(world.console.url, `${jobPath}&part=status`);
        const section = await response.text();
        return section.includes('data-state="done"') ? section : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(done).toContain("3 moved");
    for (const id of ids) expect((await store.get(id))?.redrives).toHaveLength(1);
  });
});
