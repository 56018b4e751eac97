import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ENDPOINT_ENV, localAwsEnv } from "../../../lib/adapters/aws-clients.js";
import { ENV } from "../../../lib/contract/environment.js";
import { LOCAL_CREDENTIALS } from "../../../lib/contract/local-identity.js";
import { CallerSource } from "../../../lib/core/record.js";
import { createLambdaContext } from "../../../lib/local/lambda-context.js";
import { deadLetterEvent } from "../../support/dead-letter-fixture.js";
import { localAws } from "../../support/local-aws.js";
import { createRedriveWorld, type RedriveWorld } from "../../support/redrive-world.js";
import { type StsStandIn, startStsStandIn } from "../../support/sts-stand-in.js";

/*
 * The deployed operator function's handler (functions/operator.ts), wired as in Lambda from its
 * environment, against the emulators and an STS stand-in that says the function's credentials
 * are its role's. A direct Invoke tells the function nothing of its invoker, so the entry must
 * name the role as the role, and keep the invoker's own claim as `by`.
 */

const FUNCTION_ROLE = {
  arn: "arn:aws:sts::123456789012:assumed-role/ricochet-redrive-role/ricochet-redrive",
  account: "123456789012",
  userId: "AROAEXAMPLEROLE:ricochet-redrive",
};

let world: RedriveWorld;
let sts: StsStandIn;

beforeAll(async () => {
  world = await createRedriveWorld("fn-caller");
  // DynamoDB Local keeps data per access key, so the function signs with the local key, which
  // the stand-in answers for as the function's role.
  sts = await startStsStandIn({ [LOCAL_CREDENTIALS.accessKeyId]: FUNCTION_ROLE });
  const env: Record<string, string> = {
    ...localAwsEnv(localAws()),
    [ENDPOINT_ENV.STS]: sts.url,
    [ENV.TABLE_NAME]: world.tableName,
    [ENV.INGRESS_QUEUE_URL]: world.ingressQueueUrl,
    [ENV.INTERNAL_QUEUE_URL]: world.internalQueueUrl,
    [ENV.DEAD_LETTER_QUEUE_URL]: world.deadLetterQueueUrl,
  };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await sts.close();
});

describe("the operator function", () => {
  it("records its own role as the caller, labelled as such, and the request's claim as by", async () => {
    const { handler } = await import("../../../functions/operator.js");
    const dead = await deadLetterEvent(world.store, world.dlq);
    const context = createLambdaContext({
      functionName: "ricochet-redrive",
      region: localAws().region,
      accountId: FUNCTION_ROLE.account,
      deadlineMs: Date.now() + 120_000,
      logStreamName: "test",
      now: Date.now,
    });
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      const report = await handler(
        { eventIds: [dead.eventId], by: "ana@example.com", why: "receiver fixed" },
        context,
      );
      expect("moved" in report && report.moved.map((m) => m.eventId)).toEqual([dead.eventId]);
      // The line that joins the entry to CloudTrail's record of the Invoke, where the invoker is.
      expect(log.mock.calls.map(([line]) => JSON.parse(String(line)))).toContainEqual({
        message: "redrive",
        requestId: context.awsRequestId,
        by: "ana@example.com",
      });
    } finally {
      log.mockRestore();
    }
    const record = await world.store.get(dead.eventId);
    expect(record?.redrives).toEqual([
      expect.objectContaining({
        by: "ana@example.com",
        reason: "receiver fixed",
        caller: { source: CallerSource.FUNCTION_ROLE, ...FUNCTION_ROLE },
      }),
    ]);
  });
});
