import { LambdaClient } from "@aws-sdk/client-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOperatorRequest } from "../../lib/app/operator/operator-function.js";
import {
  createRicochetOperatorClient,
  type RicochetOperatorClient,
} from "../../lib/client/operator-client.js";
import { LOCAL_CREDENTIALS } from "../../lib/contract/local-identity.js";
import {
  InvalidRequestError,
  OperatorFunctionError,
  RedriveFunctionError,
} from "../../lib/core/errors.js";
import { AuditAction } from "../../lib/core/record.js";
import { EventStatus } from "../../lib/core/status.js";
import { deadLetterEvent } from "../support/dead-letter-fixture.js";
import { anEnvelope } from "../support/factories.js";
import {
  type FakeOperatorFunction,
  startFakeOperatorFunction,
} from "../support/fake-operator-function.js";
import { localAws } from "../support/local-aws.js";
import { recordedEvent } from "../support/recorded-event-fixture.js";
import { createRedriveWorld, type RedriveWorld } from "../support/redrive-world.js";

/*
 * The operator function's dispatch (lib/app/operator/operator-function.ts, what functions/operator.ts runs) and
 * the operator client that invokes it, against the emulators; a local server stands in for the
 * Lambda Invoke API and runs the same dispatch.
 */
let world: RedriveWorld;
let fn: FakeOperatorFunction;
let client: RicochetOperatorClient;
const deps = () => ({ ...world.deps, retentionSeconds: 3_600 });
const lambda = () =>
  new LambdaClient({
    endpoint: fn.endpoint,
    region: localAws().region,
    credentials: LOCAL_CREDENTIALS,
  });

beforeAll(async () => {
  world = await createRedriveWorld("opclient");
  fn = await startFakeOperatorFunction(deps());
  client = createRicochetOperatorClient({ functionName: "ricochet-redrive", lambda: lambda() });
});

afterAll(() => fn.close());

describe("the operator function's dispatch", () => {
  it("runs a redrive when the request names no action, as before actions existed", async () => {
    const dead = await deadLetterEvent(world.store, world.dlq);
    const report = await runOperatorRequest(deps(), { eventIds: [dead.eventId], by: "ops" });
    expect(report).toMatchObject({ moved: [{ eventId: dead.eventId }] });
  });

  it.each([
    [
      "an unknown action",
      { action: "delete", eventIds: ["e-1"], by: "ops" },
      ["action: must be one of redrive, cancel, replay"],
    ],
    ["not an object", ["e-1"], [": must be a JSON object"]],
    [
      "a cancel missing who asks and naming no event",
      { action: "cancel", eventIds: [] },
      ["eventIds", "by"],
    ],
    [
      "a replay with a field it does not take",
      { action: "replay", eventIds: ["e-1"], envelopes: [{}], by: "ops", why: "x" },
      ["why"],
    ],
    [
      "a redrive with action and a bad field",
      { action: "redrive", by: "ops", limit: 0 },
      ["limit"],
    ],
  ])("refuses %s, listing every problem", async (_, request, problems) => {
    const error = await runOperatorRequest(deps(), request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    for (const problem of problems) expect((error as Error).message).toContain(problem);
  });
});

describe("the operator client", () => {
  it("cancels through the function: a waiting event is cancelled with its audit, a delivered one refused", async () => {
    const [waiting, delivered] = [anEnvelope(), anEnvelope()];
    await recordedEvent(world.store, waiting, EventStatus.RETRY_SCHEDULED);
    await recordedEvent(world.store, delivered, EventStatus.DELIVERED);

    const report = await client.cancel({
      eventIds: [waiting.eventId, delivered.eventId],
      by: "billing-service",
      reason: "order withdrawn",
    });

    expect(fn.invocations.at(-1)?.request).toMatchObject({ action: "cancel" });
    expect(report).toEqual({
      dryRun: false,
      cancelled: [{ eventId: waiting.eventId, previousStatus: EventStatus.RETRY_SCHEDULED }],
      refused: [
        { eventId: delivered.eventId, reason: expect.stringContaining("already delivered") },
      ],
      failed: [],
    });
    const record = await world.store.get(waiting.eventId);
    expect(record?.status).toBe(EventStatus.CANCELLED);
    expect(record?.audit).toEqual([
      expect.objectContaining({ action: AuditAction.CANCELLED, by: "billing-service" }),
    ]);
  });

  it("replays a delivered event through the function", async () => {
    const delivered = anEnvelope();
    const before = await recordedEvent(world.store, delivered, EventStatus.DELIVERED);
    const report = await client.replay({
      eventIds: [delivered.eventId],
      envelopes: [delivered],
      by: "support",
      reason: "receiver restored a backup",
    });
    expect(report.replayed).toEqual([
      expect.objectContaining({
        eventId: delivered.eventId,
        generation: before.generation + 1,
        replay: 1,
      }),
    ]);
    expect(await world.store.get(delivered.eventId)).toMatchObject({
      status: EventStatus.PENDING,
      replays: 1,
    });
  });

  it("refuses an invalid request without invoking the function", async () => {
    const before = fn.invocations.length;
    await expect(client.cancel({ eventIds: [], by: "" })).rejects.toThrow(InvalidRequestError);
    await expect(client.replay({ eventIds: ["e-1"], envelopes: [], by: "ops" })).rejects.toThrow(
      /envelopes/,
    );
    expect(fn.invocations).toHaveLength(before);
  });

  it("reports a function that fails as an OperatorFunctionError naming its error", async () => {
    const failing = createRicochetOperatorClient({ functionName: "throws", lambda: lambda() });
    const error = await failing.cancel({ eventIds: ["e-1"], by: "ops" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperatorFunctionError);
    // The deprecated former name is the same class, so code catching it by that name still does.
    expect(error).toBeInstanceOf(RedriveFunctionError);
    expect((error as Error).message).toBe(
      "the operator function throws failed: StoreUnavailableError: table is throttled",
    );
  });
});
