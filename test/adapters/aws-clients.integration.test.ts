import { ListStacksCommand } from "@aws-sdk/client-cloudformation";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { ListFunctionsCommand } from "@aws-sdk/client-lambda";
import { ListQueuesCommand } from "@aws-sdk/client-sqs";
import { GetCommand, PutCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import {
  type AwsClientMiddleware,
  createAwsClients,
  localAwsEnv,
  resolveEndpoint,
  stsEndpointOf,
} from "../../lib/adapters/aws-clients.js";
import { LOCAL_CREDENTIALS } from "../../lib/contract/local-identity.js";
import { createTestTable, localAws, testClients } from "../support/local-aws.js";
import { closedPort } from "./targets/local-servers.js";

describe("resolveEndpoint", () => {
  it.each([
    [
      "the explicit endpoint first",
      "http://a",
      { X: "http://b", AWS_ENDPOINT_URL: "http://c" },
      "http://a",
    ],
    [
      "the service variable next",
      undefined,
      { X: "http://b", AWS_ENDPOINT_URL: "http://c" },
      "http://b",
    ],
    ["the shared variable last", undefined, { AWS_ENDPOINT_URL: "http://c" }, "http://c"],
    ["blank values as absent", " ", { X: "", AWS_ENDPOINT_URL: "  " }, undefined],
    ["none at all", undefined, {}, undefined],
  ])("takes %s", (_label, explicit, env, expected) => {
    expect(resolveEndpoint(explicit, "X", env)).toBe(expected);
  });
});

describe("stsEndpointOf", () => {
  const EMULATED = { AWS_ENDPOINT_URL_SQS: "http://sqs", AWS_ENDPOINT_URL_DYNAMODB: "http://ddb" };
  it.each([
    ["AWS's own STS with no override at all", undefined, {}, undefined],
    [
      "the shared override, as LocalStack's STS",
      undefined,
      { AWS_ENDPOINT_URL: "http://ls" },
      "http://ls",
    ],
    [
      "STS's own override over the emulators'",
      undefined,
      { ...EMULATED, AWS_ENDPOINT_URL_STS: "http://sts" },
      "http://sts",
    ],
    [
      "an explicit STS endpoint first",
      { sts: "http://x" },
      { AWS_ENDPOINT_URL_STS: "http://sts" },
      "http://x",
    ],
    ["none beside emulators named in the environment", undefined, EMULATED, null],
    ["none beside emulators named explicitly", { sqs: "http://sqs" }, {}, null],
    ["none beside an emulated DynamoDB alone", { dynamodb: "http://ddb" }, {}, null],
  ])("gives %s", (_label, endpoints, env, expected) => {
    expect(stsEndpointOf(endpoints, env)).toBe(expected);
  });
});

/** A middleware recording `Client.Command` for every request attempt it sees. */
const requestRecorder = () => {
  const seen: string[] = [];
  const counter: AwsClientMiddleware = {
    name: "recordRequests",
    middleware: (next, context) => (args) => {
      seen.push(`${context.clientName}.${context.commandName}`);
      return next(args);
    },
  };
  return { seen, counter };
};

describe("createAwsClients", () => {
  it("sends every client's requests, document client included, through added middleware", async () => {
    const { seen, counter } = requestRecorder();
    const tableName = await createTestTable("clients");
    const clients = testClients({ middleware: [counter] });
    try {
      await clients.sqs.send(new ListQueuesCommand({}));
      await clients.dynamodb.send(new ListTablesCommand({}));
      await clients.documents.send(new ScanCommand({ TableName: tableName }));
    } finally {
      clients.destroy();
    }
    expect(seen).toEqual([
      "SQSClient.ListQueuesCommand",
      "DynamoDBClient.ListTablesCommand",
      "DynamoDBClient.ScanCommand",
    ]);
  });

  it("sends the clients loaded on first use through the added middleware too", async () => {
    const { seen, counter } = requestRecorder();
    // Nothing listens there: the middleware sees the request before the connection is refused.
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const clients = createAwsClients({
      region: localAws().region,
      credentials: LOCAL_CREDENTIALS,
      endpoints: { lambda: nowhere, cloudformation: nowhere },
      middleware: [counter],
      env: {},
    });
    try {
      const lambda = await clients.lambda();
      expect(await clients.lambda()).toBe(lambda);
      await expect(lambda.send(new ListFunctionsCommand({}))).rejects.toThrow();
      const cloudformation = await clients.cloudformation();
      await expect(cloudformation.send(new ListStacksCommand({}))).rejects.toThrow();
    } finally {
      clients.destroy();
    }
    // CloudFormation keeps the SDK's retries, and the middleware sees every attempt.
    expect(new Set(seen)).toEqual(
      new Set(["LambdaClient.ListFunctionsCommand", "CloudFormationClient.ListStacksCommand"]),
    );
  });

  it("reads the endpoints from the standard variables when none is passed", async () => {
    const clients = createAwsClients({
      region: localAws().region,
      credentials: LOCAL_CREDENTIALS,
      env: {
        AWS_ENDPOINT_URL_SQS: localAws().endpoints.sqs,
        AWS_ENDPOINT_URL_DYNAMODB: localAws().endpoints.dynamodb,
      },
    });
    try {
      const queues = await clients.sqs.send(new ListQueuesCommand({}));
      const tables = await clients.dynamodb.send(new ListTablesCommand({}));
      expect([queues.$metadata.httpStatusCode, tables.$metadata.httpStatusCode]).toEqual([
        200, 200,
      ]);
    } finally {
      clients.destroy();
    }
  });

  it("never lets the SDK retry a Lambda invoke, so a target runs at most once per attempt", async () => {
    const clients = createAwsClients({
      region: "us-east-1",
      credentials: LOCAL_CREDENTIALS,
      env: {},
    });
    try {
      expect(await (await clients.lambda()).config.maxAttempts()).toBe(1);
      expect(await clients.sqs.config.maxAttempts()).toBeGreaterThan(1);
    } finally {
      clients.destroy();
    }
  });

  it("drops undefined attributes instead of rejecting the write", async () => {
    const tableName = await createTestTable("undefined-values");
    const { documents } = testClients();
    await documents.send(
      new PutCommand({ TableName: tableName, Item: { eventId: "e1", absent: undefined } }),
    );
    const { Item } = await documents.send(
      new GetCommand({ TableName: tableName, Key: { eventId: "e1" } }),
    );
    expect(Item).toEqual({ eventId: "e1" });
  });
});

describe("localAwsEnv", () => {
  it("gives a child process the endpoints, region (both names the SDKs and the aws CLI read) and the dummy identity", () => {
    expect(
      localAwsEnv({ endpoints: { sqs: "http://s", dynamodb: "http://d" }, region: "us-east-1" }),
    ).toEqual({
      AWS_ENDPOINT_URL_SQS: "http://s",
      AWS_ENDPOINT_URL_DYNAMODB: "http://d",
      AWS_REGION: "us-east-1",
      AWS_DEFAULT_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    });
  });
});
