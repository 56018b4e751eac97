import { afterEach, describe, expect, it } from "vitest";
import { type AwsClients, createAwsClients } from "../../lib/adapters/aws-clients.js";
import { resolveResources, STACK_OUTPUT } from "../../lib/cli/resources.js";
import { ENV } from "../../lib/contract/environment.js";
import { LOCAL_CREDENTIALS } from "../../lib/contract/local-identity.js";
import { ConfigurationError, ResourceNotFoundError } from "../../lib/core/errors.js";
import { type LocalReceiver, startReceiver } from "../adapters/targets/local-servers.js";

/*
 * Where the CLI finds a deployment's resources: flags, then RICOCHET_* variables, then the stack's
 * outputs, read through the real CloudFormation client from a loopback server answering
 * DescribeStacks as CloudFormation does (query protocol, XML).
 */

const open: { server: LocalReceiver; clients: AwsClients }[] = [];
afterEach(async () => {
  for (const { server, clients } of open.splice(0)) {
    clients.destroy();
    await server.close();
  }
});

const describeStacksAnswer = (stackName: string, outputs: Record<string, string>): string =>
  `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">
  <DescribeStacksResult><Stacks><member>
    <StackName>${stackName}</StackName>
    <StackStatus>CREATE_COMPLETE</StackStatus>
    <CreationTime>2026-11-30T00:00:00Z</CreationTime>
    <Outputs>${Object.entries(outputs)
      .map(
        ([key, value]) =>
          `<member><OutputKey>${key}</OutputKey><OutputValue>${value}</OutputValue></member>`,
      )
      .join("")}</Outputs>
  </member></Stacks></DescribeStacksResult>
  <ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata>
</DescribeStacksResponse>`;

const NO_SUCH_STACK = `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">
  <Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id Elsewhere does not exist</Message></Error>
  <RequestId>r-2</RequestId>
</ErrorResponse>`;

/** A CloudFormation stand-in serving one stack's outputs, and the clients pointed at it. */
const cloudFormationWith = async (stackName: string, outputs: Record<string, string>) => {
  const server = await startReceiver((request, response) => {
    const asked = new URLSearchParams(request.body).get("StackName");
    const found = asked === stackName;
    response
      .writeHead(found ? 200 : 400, { "Content-Type": "text/xml" })
      .end(found ? describeStacksAnswer(stackName, outputs) : NO_SUCH_STACK);
  });
  const clients = createAwsClients({
    region: "us-east-1",
    credentials: LOCAL_CREDENTIALS,
    endpoints: { cloudformation: `http://127.0.0.1:${server.port}` },
    env: {},
  });
  open.push({ server, clients });
  const stackReads = () =>
    server.seen.map((request) => new URLSearchParams(request.body).get("StackName"));
  return { clients, stackReads };
};

describe("resolveResources", () => {
  it("takes a flag first, then the environment, then the stack's outputs for what is still missing", async () => {
    const { clients, stackReads } = await cloudFormationWith("Orders", {
      [STACK_OUTPUT.tableName]: "table-from-stack",
      [STACK_OUTPUT.ingressQueueUrl]: "queue-from-stack",
      [STACK_OUTPUT.deadLetterQueueUrl]: "dlq-from-stack",
      [STACK_OUTPUT.operatorFunctionName]: "operator-from-stack",
    });

    const resolved = await resolveResources(
      ["tableName", "ingressQueueUrl", "deadLetterQueueUrl", "operatorFunctionName"],
      { table: "table-from-flag", stack: "Orders" },
      {
        env: { [ENV.INGRESS_QUEUE_URL]: "queue-from-env" },
        cloudformation: clients.cloudformation,
      },
    );

    expect(resolved).toEqual({
      tableName: "table-from-flag",
      ingressQueueUrl: "queue-from-env",
      deadLetterQueueUrl: "dlq-from-stack",
      operatorFunctionName: "operator-from-stack",
    });
    expect(stackReads()).toEqual(["Orders"]);
  });

  it.each([
    [
      "only the former key, as a stack deployed before the rename has",
      { RedriveFunctionName: "f" },
    ],
    ["both keys, preferring the current", { OperatorFunctionName: "f", RedriveFunctionName: "g" }],
  ])("finds the operator function under %s", async (_, outputs) => {
    const { clients } = await cloudFormationWith("Ricochet", outputs);

    const resolved = await resolveResources(
      ["operatorFunctionName"],
      {},
      { env: {}, cloudformation: clients.cloudformation },
    );

    expect(resolved).toEqual({ operatorFunctionName: "f" });
  });

  it("never reads the stack when flags and environment name everything asked for", async () => {
    const { clients, stackReads } = await cloudFormationWith("Ricochet", {});

    const resolved = await resolveResources(
      ["tableName", "ingressQueueUrl"],
      { table: "t" },
      { env: { [ENV.INGRESS_QUEUE_URL]: "q" }, cloudformation: clients.cloudformation },
    );

    expect(resolved).toEqual({ tableName: "t", ingressQueueUrl: "q" });
    expect(stackReads()).toEqual([]);
  });

  it("names the flag, the variable and the stack output when a resource is found nowhere", async () => {
    const { clients } = await cloudFormationWith("Ricochet", {});

    const resolving = resolveResources(
      ["tableName"],
      {},
      { env: {}, cloudformation: clients.cloudformation },
    );

    await expect(resolving).rejects.toBeInstanceOf(ConfigurationError);
    await expect(resolving).rejects.toThrow(
      `no tableName: pass --table, set ${ENV.TABLE_NAME}, or deploy stack Ricochet with output ${STACK_OUTPUT.tableName}`,
    );
  });

  it("reports a stack it cannot read as not found, naming the stack", async () => {
    const { clients } = await cloudFormationWith("Ricochet", {});

    const resolving = resolveResources(
      ["tableName"],
      { stack: "Elsewhere" },
      { env: {}, cloudformation: clients.cloudformation },
    );

    await expect(resolving).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(resolving).rejects.toThrow(
      /^cannot read stack Elsewhere: Stack with id Elsewhere does not exist/,
    );
  });
});
