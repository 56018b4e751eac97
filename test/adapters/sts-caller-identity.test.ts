import type { AwsCredentialIdentity } from "@smithy/types";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type AwsClients, createAwsClients } from "../../lib/adapters/aws-clients.js";
import {
  createStsCallerIdentity,
  NO_STS_ENDPOINT,
} from "../../lib/adapters/sts-caller-identity.js";
import { LOCAL_CREDENTIALS } from "../../lib/contract/local-identity.js";
import { CallerSource } from "../../lib/core/record.js";
import { type StsStandIn, startStsStandIn } from "../support/sts-stand-in.js";
import { closedPort } from "./targets/local-servers.js";

const ANA = {
  arn: "arn:aws:iam::123456789012:user/ana",
  account: "123456789012",
  userId: "AIDAEXAMPLEANA",
};
const ROLE = {
  arn: "arn:aws:sts::123456789012:assumed-role/ricochet-redrive/ricochet-redrive-fn",
  account: "123456789012",
  userId: "AROAEXAMPLEROLE:ricochet-redrive-fn",
};
const ROLE_KEY = { accessKeyId: "ASIAROLEKEY", secretAccessKey: "role-secret" };

let standIn: StsStandIn;
const opened: AwsClients[] = [];

/** The real STS client, signing with `credentials`, pointed at `endpoint` (the stand-in). */
const clientsFor = (
  endpoint: string,
  credentials: AwsCredentialIdentity = LOCAL_CREDENTIALS,
): AwsClients => {
  const clients = createAwsClients({
    endpoints: { sts: endpoint },
    region: "us-east-1",
    credentials,
    env: {},
  });
  opened.push(clients);
  return clients;
};

const lookupAt = (endpoint: string, options: { timeoutMs?: number } = {}) =>
  createStsCallerIdentity({
    sts: clientsFor(endpoint).sts,
    source: CallerSource.OPERATOR,
    ...options,
  }).lookup();

beforeAll(async () => {
  standIn = await startStsStandIn({
    [LOCAL_CREDENTIALS.accessKeyId]: ANA,
    [ROLE_KEY.accessKeyId]: ROLE,
  });
});

afterEach(() => standIn.setMode({ kind: "answer" }));

afterAll(async () => {
  for (const clients of opened) clients.destroy();
  await standIn.close();
});

describe("the STS caller identity", () => {
  it("maps GetCallerIdentity's ARN, account and user id, labelled with whose credentials", async () => {
    expect(await lookupAt(standIn.url)).toEqual({ source: CallerSource.OPERATOR, ...ANA });
  });

  it("names whoever signed: the function role's credentials give the role", async () => {
    const identity = createStsCallerIdentity({
      sts: clientsFor(standIn.url, ROLE_KEY).sts,
      source: CallerSource.FUNCTION_ROLE,
    });
    expect(await identity.lookup()).toEqual({ source: CallerSource.FUNCTION_ROLE, ...ROLE });
    expect(standIn.accessKeys.at(-1)).toBe(ROLE_KEY.accessKeyId);
  });

  it.each([
    [
      "expired credentials",
      {
        kind: "error",
        status: 403,
        code: "ExpiredToken",
        message: "The security token included in the request is expired",
      },
      "STS GetCallerIdentity failed: ExpiredToken: The security token included in the request is expired",
    ],
    [
      "STS not activated in the region",
      {
        kind: "error",
        status: 403,
        code: "RegionDisabledException",
        message: "STS is not activated in this region for account:123456789012.",
      },
      "STS GetCallerIdentity failed: RegionDisabledException: STS is not activated in this region for account:123456789012.",
    ],
  ] as const)("is unverified, naming the error, for %s", async (_label, mode, reason) => {
    standIn.setMode(mode);
    expect(await lookupAt(standIn.url)).toEqual({
      source: CallerSource.OPERATOR,
      unverified: reason,
    });
  });

  it("is unverified for credentials STS does not know", async () => {
    const identity = createStsCallerIdentity({
      sts: clientsFor(standIn.url, { accessKeyId: "AKIAUNKNOWN", secretAccessKey: "x" }).sts,
      source: CallerSource.OPERATOR,
    });
    expect(await identity.lookup()).toEqual({
      source: CallerSource.OPERATOR,
      unverified:
        "STS GetCallerIdentity failed: InvalidClientTokenId: The security token included in the request is invalid.",
    });
  });

  it("gives up after its timeout rather than hold the action up", async () => {
    standIn.setMode({ kind: "hang" });
    const started = Date.now();
    expect(await lookupAt(standIn.url, { timeoutMs: 300 })).toEqual({
      source: CallerSource.OPERATOR,
      unverified: "no answer from STS within 300 ms",
    });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("is unverified when STS cannot be reached", async () => {
    const caller = await lookupAt(`http://127.0.0.1:${await closedPort()}`);
    expect(caller).toMatchObject({ source: CallerSource.OPERATOR });
    expect("unverified" in caller && caller.unverified).toMatch(
      /^STS GetCallerIdentity failed: .*ECONNREFUSED/,
    );
  });

  it("asks nothing beside the local emulators, which have no STS", async () => {
    const clients = createAwsClients({
      endpoints: { sqs: standIn.url, dynamodb: standIn.url },
      region: "us-east-1",
      credentials: LOCAL_CREDENTIALS,
      env: {},
    });
    opened.push(clients);
    const before = standIn.accessKeys.length;
    const identity = createStsCallerIdentity({ sts: clients.sts, source: CallerSource.OPERATOR });
    expect(await identity.lookup()).toEqual({
      source: CallerSource.OPERATOR,
      unverified: NO_STS_ENDPOINT,
    });
    expect(standIn.accessKeys).toHaveLength(before);
  });
});
