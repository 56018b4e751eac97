import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { localAwsEnv } from "../../lib/adapters/aws-clients.js";
import { ENV, LAMBDA_RUNTIME_ENV } from "../../lib/contract/environment.js";
import { BUNDLE_FILE, esbuildOptions, type FunctionName } from "../../lib/infra/bundling.js";
import {
  devSettingsFromTemplate,
  localFunctionEnvironment,
} from "../../lib/local/dev-settings-from-template.js";
import { provisionFromTemplate } from "../../lib/local/provision-from-template.js";
import {
  type DeployedStack,
  functionBundle,
  referencedFunction,
  synthesizeDeployedStack,
} from "../support/deployed-bundle.js";
import {
  type DeployedFunctions,
  itDeliversAsDeployed,
  startDeployedFunctions,
} from "../support/deployed-functions.js";
import { LAMBDA_NODE_VERSION, LAMBDA_RUNTIME } from "../support/lambda-node.js";
import { localAws, testClients, uniqueName } from "../support/local-aws.js";

/*
 * The functions as deployed: the stack is synthesized with its assets bundled, and the files the
 * template's orchestrator and operator functions point at are imported in fresh Node processes
 * (no tsx, no test code) of the Node.js the Lambda runtime runs, with the template's environment, its references resolved to queues and
 * a table made from the same template on the emulators. The orchestrator is fed Lambda-shaped SQS
 * events by the local event source poller, one per queue as the template maps them.
 * test/moto/moto-stack.integration.test.ts runs the same cases on a stack a CloudFormation built.
 */

let stack: DeployedStack;
let deployed: DeployedFunctions;
/** The bundle file each function's template resource points at. */
let bundles: Record<FunctionName, string>;
/** The `Runtime` each function's template resource names. */
let runtimes: Record<FunctionName, unknown>;

beforeAll(async () => {
  stack = synthesizeDeployedStack({ allowedTargetHosts: ["127.0.0.1"] });
  const clients = testClients();
  const resources = await provisionFromTemplate(stack.template, {
    sqs: clients.sqs,
    dynamodb: clients.dynamodb,
    namePrefix: uniqueName("deployed"),
  });
  const settings = devSettingsFromTemplate(stack.template, resources);
  const orchestratorId = settings.functionLogicalId;
  const orchestratorResource = stack.template.Resources[orchestratorId];
  if (orchestratorResource === undefined) throw new Error("no orchestrator function");
  const operatorId = referencedFunction(orchestratorResource, ENV.OPERATOR_FUNCTION_NAME);
  const operatorResource = stack.template.Resources[operatorId];
  if (operatorResource === undefined) throw new Error("no operator function");
  // What the Lambda runtime adds to the template's variables: region, credentials, the name.
  const runtimeEnv = (name: string) => ({
    ...localAwsEnv(localAws()),
    [LAMBDA_RUNTIME_ENV.FUNCTION_NAME]: name,
  });
  bundles = {
    orchestrator: functionBundle(stack, orchestratorId),
    operator: functionBundle(stack, operatorId),
  };
  runtimes = {
    orchestrator: orchestratorResource.Properties?.Runtime,
    operator: operatorResource.Properties?.Runtime,
  };
  deployed = await startDeployedFunctions({
    orchestratorBundle: bundles.orchestrator,
    operatorBundle: bundles.operator,
    orchestratorEnv: { ...settings.env, ...runtimeEnv(orchestratorId) },
    operatorEnv: {
      ...localFunctionEnvironment(operatorResource, resources),
      ...runtimeEnv(operatorId),
    },
    orchestratorName: orchestratorId,
    sqs: clients.sqs,
    documents: clients.documents,
    region: localAws().region,
    batchSize: settings.poller.batchSize,
    functionTimeoutMs: settings.poller.functionTimeoutMs,
  });
}, 240_000);

afterAll(async () => {
  await deployed?.stop();
  stack?.remove();
});

describe("the deployed function bundles, run against the emulators", () => {
  it("run on the Node.js of the runtime the template names, not the development Node", () => {
    console.info(
      `the deployed bundles ran on Node.js ${JSON.stringify(deployed.nodeVersions)} for ${JSON.stringify(runtimes)}; this test runs on ${process.version}`,
    );

    expect(runtimes).toEqual({ orchestrator: LAMBDA_RUNTIME, operator: LAMBDA_RUNTIME });
    // A runtime moved to a new Node.js line needs the binary the tests fetch moved with it.
    expect(LAMBDA_RUNTIME).toBe(`nodejs${LAMBDA_NODE_VERSION.split(".")[0]}.x`);
    expect(deployed.nodeVersions).toEqual({
      orchestrator: `v${LAMBDA_NODE_VERSION}`,
      operator: `v${LAMBDA_NODE_VERSION}`,
    });
  });

  it("are, byte for byte, what `npm run build` ships in the package for each function", async () => {
    for (const name of ["orchestrator", "operator"] as const) {
      // As scripts/build-functions.ts writes them; the file name only shows in the map's comment.
      const built = await build({
        ...esbuildOptions(name),
        outfile: join("/package", BUNDLE_FILE),
        write: false,
      });
      const code = built.outputFiles.find((file) => file.path.endsWith(BUNDLE_FILE));
      const synthesized = await readFile(bundles[name]);
      expect({ name, same: synthesized.equals(code?.contents ?? new Uint8Array()) }).toEqual({
        name,
        same: true,
      });
    }
  });

  itDeliversAsDeployed(() => deployed);

  it("dead-letter an invalid envelope with reason invalid_envelope, without calling anyone", async () => {
    const eventId = uniqueName("invalid");
    await deployed.submit({ version: 1, eventId, target: { type: "ftp" }, payload: null });

    await vi.waitFor(
      async () =>
        expect(await deployed.deadLetters(eventId)).toEqual([
          expect.objectContaining({ eventId, reason: "invalid_envelope" }),
        ]),
      { timeout: 45_000, interval: 500 },
    );
    expect(deployed.callsFor(eventId)).toHaveLength(0);
  }, 60_000);
});
