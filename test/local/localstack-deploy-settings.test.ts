import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../lib/infra/bundling.js";
import {
  cdklocalEnv,
  DEFAULT_LOCALSTACK_ENDPOINT,
  HOST_FROM_LAMBDA,
  localhostForLoopback,
  localStackContext,
} from "../../lib/local/localstack-deploy-settings.js";

describe("cdklocalEnv", () => {
  it("sets the S3 endpoint cdklocal demands beside AWS_ENDPOINT_URL, and LocalStack's defaults", () => {
    expect(cdklocalEnv({})).toEqual({
      AWS_ENDPOINT_URL: DEFAULT_LOCALSTACK_ENDPOINT,
      AWS_ENDPOINT_URL_S3: DEFAULT_LOCALSTACK_ENDPOINT,
      AWS_REGION: "us-east-1",
      AWS_DEFAULT_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "test",
      AWS_SECRET_ACCESS_KEY: "test",
      AWS_ENVAR_ALLOWLIST: "AWS_REGION,AWS_DEFAULT_REGION,AWS_ACCESS_KEY_ID,AWS_SECRET_ACCESS_KEY",
    });
  });

  it("keeps what the developer set, and lets cdklocal keep the region and credentials", () => {
    const env = cdklocalEnv({
      AWS_ENDPOINT_URL: "http://192.168.1.5:4567",
      AWS_ENDPOINT_URL_S3: "http://s3.localhost.localstack.cloud:4567",
      AWS_DEFAULT_REGION: "eu-west-1",
      AWS_ACCESS_KEY_ID: "dev",
      AWS_SECRET_ACCESS_KEY: "dev-secret",
      AWS_ENVAR_ALLOWLIST: "AWS_MAX_ATTEMPTS",
    });

    expect(env).toMatchObject({
      AWS_ENDPOINT_URL: "http://192.168.1.5:4567",
      AWS_ENDPOINT_URL_S3: "http://s3.localhost.localstack.cloud:4567",
      AWS_REGION: "eu-west-1",
      AWS_ACCESS_KEY_ID: "dev",
      AWS_SECRET_ACCESS_KEY: "dev-secret",
    });
    expect(env.AWS_ENVAR_ALLOWLIST?.split(",")).toEqual(
      expect.arrayContaining(["AWS_MAX_ATTEMPTS", "AWS_REGION", "AWS_ACCESS_KEY_ID"]),
    );
  });
});

describe("localhostForLoopback", () => {
  it.each([
    ["http://127.0.0.1:5055", "http://localhost:5055"],
    ["http://127.0.0.1:5055/", "http://localhost:5055/"],
    ["http://[::1]:4566", "http://localhost:4566"],
    ["https://127.0.0.1", "https://localhost"],
    ["http://localhost:4566", "http://localhost:4566"],
    ["http://127.0.0.2:4566", "http://127.0.0.2:4566"],
    ["http://localstack:4566", "http://localstack:4566"],
    ["not a url", "not a url"],
  ])("spells %s as %s for cdklocal", (given, expected) => {
    expect(localhostForLoopback(given)).toBe(expected);
  });

  it("applies to the endpoint and the S3 endpoint cdklocal is given", () => {
    expect(cdklocalEnv({ AWS_ENDPOINT_URL: "http://127.0.0.1:5055" })).toMatchObject({
      AWS_ENDPOINT_URL: "http://localhost:5055",
      AWS_ENDPOINT_URL_S3: "http://localhost:5055",
    });
  });
});

describe("localStackContext", () => {
  it("adds the hosts to cdk.json's allowed target hosts and keeps every other setting", () => {
    const context = localStackContext(
      {
        stackName: "Ricochet",
        allowedTargetHosts: ["10.0.0.0/8"],
        defaultPolicy: { maxAttempts: 8 },
      },
      [HOST_FROM_LAMBDA, "10.0.0.0/8"],
    );

    expect(context).toEqual({
      stackName: "Ricochet",
      allowedTargetHosts: ["10.0.0.0/8", HOST_FROM_LAMBDA],
      defaultPolicy: { maxAttempts: 8 },
    });
  });

  it("starts from nothing when cdk.json has no ricochet context", () => {
    expect(localStackContext(undefined, [HOST_FROM_LAMBDA])).toEqual({
      allowedTargetHosts: [HOST_FROM_LAMBDA],
    });
  });
});

describe("docker-compose.yml", () => {
  const compose = readFileSync(join(PROJECT_ROOT, "docker-compose.yml"), "utf8");

  it("runs the arm64 functions on any host architecture", () => {
    expect(compose).toMatch(/^\s+LAMBDA_IGNORE_ARCHITECTURE: "1"$/m);
  });

  it(`maps ${HOST_FROM_LAMBDA} to the host in every Lambda container`, () => {
    expect(compose).toMatch(
      new RegExp(`^\\s+LAMBDA_DOCKER_FLAGS: "--add-host=${HOST_FROM_LAMBDA}:host-gateway"$`, "m"),
    );
  });

  it("pins the last community release, which runs without an auth token", () => {
    expect(compose).toMatch(/^\s+image: localstack\/localstack:4\.14\.0$/m);
  });

  it("starts KMS, so a deployment with OrchestratorEncryption.kms can be tried", () => {
    const services = /^\s+SERVICES: (\S+)$/m.exec(compose)?.[1]?.split(",") ?? [];
    expect(services).toEqual(expect.arrayContaining(["kms", "sqs", "dynamodb", "lambda"]));
  });

  it("deploys the dashboard, which community LocalStack does not build, by explicit choice", () => {
    expect(compose).toMatch(/^\s+CFN_IGNORE_UNSUPPORTED_RESOURCE_TYPES: "1"$/m);
  });
});
