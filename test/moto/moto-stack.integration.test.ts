import { GetFunctionConfigurationCommand, type LambdaClient } from "@aws-sdk/client-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AwsClients, createAwsClients, localAwsEnv } from "../../lib/adapters/aws-clients.js";
import { ENV, LAMBDA_RUNTIME_ENV } from "../../lib/contract/environment.js";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/contract/local-identity.js";
import {
  type DeployedStack,
  functionBundle,
  synthesizeDeployedStack,
} from "../support/deployed-bundle.js";
import {
  type DeployedFunctions,
  itDeliversAsDeployed,
  startDeployedFunctions,
} from "../support/deployed-functions.js";
import { uniqueName } from "../support/local-aws.js";
import { createStackInMoto, type MotoStack } from "./create-stack-in-moto.js";
import { readBackStack, type StackRow } from "./stack-readback.js";
import { type MotoForTests, motoForTests } from "./start-moto.js";

/*
 * The synthesized stack in a second CloudFormation: created in moto as `cdk deploy` would in a
 * bootstrapped account, read back setting by setting against what the template asked for, and
 * then driven as deployed: the bundles the functions' code points at, with the environment moto
 * resolved for them, fed by the project's poller from the queues moto built, writing to the table
 * moto built. Under `npm run test:moto` it uses that run's moto; otherwise it starts its own.
 */

/**
 * What moto accepts in a template and reports built, but does not build: each a resource type
 * and setting. The table must differ from the template in exactly these rows, so a setting moto
 * starts to honour, or a new one it drops, is seen here.
 */
const MOTO_DROPS: readonly string[] = [
  "AWS::SQS::QueuePolicy built",
  "AWS::SQS::QueuePolicy statements",
  "AWS::DynamoDB::Table TimeToLive",
  "AWS::DynamoDB::Table PointInTimeRecovery",
  "AWS::Lambda::Function Architectures",
  "AWS::Lambda::Function TracingConfig.Mode",
  "AWS::Lambda::Function LoggingConfig.LogFormat",
  "AWS::CloudWatch::Alarm built",
];

let moto: MotoForTests;
let endpoint: string;
let stack: DeployedStack;
let built: MotoStack;
let clients: AwsClients;
let lambda: LambdaClient;
let rows: StackRow[];
let deployed: DeployedFunctions;

/** A function's environment as moto built it, with what the Lambda runtime adds. */
const builtEnvironment = async (logicalId: string): Promise<Record<string, string>> => {
  const config = await lambda.send(
    new GetFunctionConfigurationCommand({ FunctionName: built.physicalId(logicalId) }),
  );
  return {
    ...(config.Environment?.Variables ?? {}),
    ...localAwsEnv({ endpoints: { sqs: endpoint, dynamodb: endpoint }, region: LOCAL_REGION }),
    [LAMBDA_RUNTIME_ENV.FUNCTION_NAME]: built.physicalId(logicalId),
  };
};

/** The template's outputs (the stack's contract with its users). */
const templateOutputs = (): Readonly<Record<string, unknown>> =>
  (stack.template as { Outputs?: Readonly<Record<string, unknown>> }).Outputs ?? {};

/** The logical id of the function a stack output names. */
const functionNamedBy = (output: string): string => {
  const name = built.outputs[output];
  const id = [...built.resources].find(([, r]) => r.PhysicalResourceId === name)?.[0];
  if (id === undefined) throw new Error(`output ${output} names no resource moto built`);
  return id;
};

beforeAll(async () => {
  moto = await motoForTests();
  endpoint = moto.endpoint;
  clients = createAwsClients({
    endpoints: { sqs: endpoint, dynamodb: endpoint, lambda: endpoint },
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    env: {},
  });
  stack = synthesizeDeployedStack({ allowedTargetHosts: ["127.0.0.1"] });
  built = await createStackInMoto(endpoint, stack, uniqueName("Ricochet"));
  lambda = await clients.lambda();
  rows = await readBackStack(stack.template, { ...clients, lambda }, built);
  const orchestratorId = functionNamedBy("OrchestratorFunctionName");
  const operatorId = functionNamedBy("OperatorFunctionName");
  const orchestratorEnv = await builtEnvironment(orchestratorId);
  const timeout = rows.find((r) => r.resource === orchestratorId && r.setting === "Timeout");
  const batch = rows.find((r) => r.setting === "BatchSize");
  deployed = await startDeployedFunctions({
    orchestratorBundle: functionBundle(stack, orchestratorId),
    operatorBundle: functionBundle(stack, operatorId),
    orchestratorEnv,
    operatorEnv: await builtEnvironment(operatorId),
    orchestratorName: built.physicalId(orchestratorId),
    sqs: clients.sqs,
    documents: clients.documents,
    region: LOCAL_REGION,
    batchSize: Number(batch?.built),
    functionTimeoutMs: Number(timeout?.built) * 1000,
  });
  // The built orchestrator names the queues and table moto made, not the project's own.
  expect(orchestratorEnv[ENV.TABLE_NAME]).toBe(built.outputs.TableName);
}, 240_000);

afterAll(async () => {
  await deployed?.stop();
  clients?.destroy();
  stack?.remove();
  await moto?.stop();
});

const typeOf = (row: StackRow): string =>
  stack.template.Resources[row.resource]?.Type ?? "(not in the template)";

/** A row's kind, as MOTO_DROPS names it: the resource type and the setting, without the queue. */
const kindOf = (row: StackRow): string =>
  `${typeOf(row)} ${row.setting.replace(/ \(.*\)$/, "").replace(/ on .*$/, "")}`;

describe("the synthesized stack, created in moto's CloudFormation", () => {
  it("reaches CREATE_COMPLETE with every output the template declares", () => {
    expect(built.status).toBe("CREATE_COMPLETE");
    expect(Object.keys(built.outputs).sort()).toEqual(Object.keys(templateOutputs()).sort());
  });

  it("builds every setting the template asks for, apart from the ones moto drops, listed", () => {
    console.log(
      [
        "resource | setting | asked | built",
        ...rows.map(
          (r) =>
            `${r.resource} | ${r.setting} | ${r.asked} | ${r.built}${r.asked === r.built ? "" : "   <- moto drops it"}`,
        ),
      ].join("\n"),
    );
    const differing = new Set(rows.filter((r) => r.asked !== r.built).map(kindOf));

    expect([...differing].sort()).toEqual([...MOTO_DROPS].sort());
    expect(rows.filter((r) => r.asked === r.built).length).toBeGreaterThan(50);
  });

  itDeliversAsDeployed(() => deployed);
});
