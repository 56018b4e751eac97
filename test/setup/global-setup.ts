/**
 * Starts local AWS once for the whole test run and stops it after the last file.
 *
 * Test files read the endpoints with `inject("localAws")` (or the helpers in
 * test/support/local-aws.ts). The standard AWS_* variables are also set before the workers start,
 * so code that reads the default AWS configuration reaches the same emulators with the same dummy
 * identity. With AWS_ENDPOINT_URL set (a running LocalStack) nothing is started, and with
 * RICOCHET_LOCAL_AWS=off (a run of pure unit tests) nothing is started or provided.
 */
import type { TestProject } from "vitest/node";
import { localAwsEnv } from "../../lib/adapters/aws-clients.js";
import { startLocalAws } from "../../lib/local/start-local-aws.js";
import "./provided-context.js";

export default async function setup(
  project: TestProject,
): Promise<(() => Promise<void>) | undefined> {
  if (process.env.RICOCHET_LOCAL_AWS === "off") return undefined;
  const local = await startLocalAws();
  project.provide("localAws", { endpoints: local.endpoints, region: local.region });
  Object.assign(process.env, localAwsEnv(local));
  return () => local.stop();
}
