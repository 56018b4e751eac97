import { describe, expect, it } from "vitest";
import { localStackDeployment } from "../../lib/local/localstack-deploy.js";
import { HOST_FROM_LAMBDA } from "../../lib/local/localstack-deploy-settings.js";

/* What `deploy:local` and `localstack:smoke` deploy with, read without running cdklocal. */
describe("localStackDeployment", () => {
  it("names cdk.json's stack, allows the host the Lambdas reach, and sets cdklocal's variables", () => {
    const deployment = localStackDeployment({
      env: { AWS_ENDPOINT_URL: "http://localstack:4566", PATH: "/bin" },
      extraHosts: ["10.0.0.0/8"],
    });

    expect(deployment.stackName).toBe("Ricochet");
    expect(deployment.context.allowedTargetHosts).toEqual(
      expect.arrayContaining([HOST_FROM_LAMBDA, "10.0.0.0/8"]),
    );
    expect(deployment.env).toMatchObject({
      PATH: "/bin",
      AWS_ENDPOINT_URL: "http://localstack:4566",
      AWS_ENDPOINT_URL_S3: "http://localstack:4566",
    });
  });
});
