import { parseArgs } from "node:util";
import { createAwsClients, ENDPOINT_ENV } from "../lib/adapters/aws-clients.js";
import { createDynamoEventStore } from "../lib/adapters/dynamo-event-store.js";
import { invokeOperatorFunction } from "../lib/adapters/lambda-operator-function.js";
import { resolveResources } from "../lib/cli/resources.js";
import { createRicochetClient } from "../lib/client/producer-client.js";
import { deployToLocalStack, localStackDeployment } from "../lib/local/localstack-deploy.js";
import { cdklocalEnv, HOST_FROM_LAMBDA } from "../lib/local/localstack-deploy-settings.js";
import { runSmokeCheck } from "../lib/local/smoke/smoke-check.js";
import { startSmokeReceiver } from "../lib/local/smoke/smoke-receiver.js";

/*
 * `npm run localstack:smoke`: against a running LocalStack, deploys the stack as
 * `npm run deploy:local` does, starts a receiver on this machine that the Lambda containers reach
 * as host.docker.internal, and checks delivered / retried / dead-lettered / redriven through the
 * deployed functions (lib/local/smoke/smoke-check.ts). stdout gets one JSON summary; the exit code
 * is 0 when every scenario ended as expected, 1 on a mismatch, 2 when it could not start.
 *
 *   npm run localstack:smoke                        # deploy, then check
 *   npm run localstack:smoke -- --skip-deploy       # check the stack already deployed
 *   npm run localstack:smoke -- --port 8081 --timeout 300
 */
const { values } = parseArgs({
  options: {
    "skip-deploy": { type: "boolean", default: false },
    port: { type: "string", default: "0" },
    timeout: { type: "string", default: "180" },
  },
});

const fail = (message: string): never => {
  process.stderr.write(`localstack:smoke: ${message}\n`);
  process.exit(2);
};

// Without it, cdklocal would deploy to its default and the clients would go to real AWS.
if ((process.env[ENDPOINT_ENV.ALL] ?? "").trim() === "") {
  fail(
    `set ${ENDPOINT_ENV.ALL} to a running LocalStack (docker compose up -d; export ${ENDPOINT_ENV.ALL}=http://localhost:4566)`,
  );
}
const port = Number(values.port);
const timeoutSeconds = Number(values.timeout);
if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--port ${values.port}: not a port`);
if (!(timeoutSeconds > 0)) fail(`--timeout ${values.timeout}: not a positive number of seconds`);

const deployment = values["skip-deploy"] ? localStackDeployment() : await deployToLocalStack();
if ("exitCode" in deployment && deployment.exitCode !== 0) {
  fail(`cdklocal failed (exit ${deployment.exitCode})`);
}

// The same endpoint, region and identity cdklocal deployed with (per-service endpoints still win).
const local = cdklocalEnv(process.env);
const clients = createAwsClients({
  env: { ...process.env, ...local },
  region: local.AWS_REGION,
  credentials: {
    accessKeyId: local.AWS_ACCESS_KEY_ID,
    secretAccessKey: local.AWS_SECRET_ACCESS_KEY,
  },
});
const receiver = await startSmokeReceiver({ host: "0.0.0.0", port });
try {
  // Only the stack's outputs: a RICOCHET_* variable in this shell must not redirect the smoke.
  const resources = await resolveResources(
    ["ingressQueueUrl", "tableName", "operatorFunctionName"],
    { stack: deployment.stackName },
    { env: {}, cloudformation: clients.cloudformation },
  );
  const summary = await runSmokeCheck({
    client: createRicochetClient({ queueUrl: resources.ingressQueueUrl, sqs: clients.sqs }),
    store: createDynamoEventStore({ doc: clients.documents, tableName: resources.tableName }),
    receiverUrl: `http://${HOST_FROM_LAMBDA}:${receiver.port}`,
    recover: receiver.recover,
    redrive: async (request) =>
      invokeOperatorFunction(
        { lambda: await clients.lambda(), functionName: resources.operatorFunctionName },
        "redrive",
        request,
      ),
    timeoutMs: timeoutSeconds * 1000,
  });
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  process.exitCode = summary.ok ? 0 : 1;
} catch (error) {
  process.stderr.write(`localstack:smoke: ${error instanceof Error ? error.message : error}\n`);
  process.exitCode = 2;
} finally {
  await receiver.stop();
  clients.destroy();
}
