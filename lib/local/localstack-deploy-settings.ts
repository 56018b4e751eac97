import { ENDPOINT_ENV } from "../adapters/aws-clients.js";

/** LocalStack's gateway as `docker-compose.yml` publishes it. */
export const DEFAULT_LOCALSTACK_ENDPOINT = "http://localhost:4566";

/**
 * How a Lambda container started by LocalStack reaches the developer's machine: the name
 * `docker-compose.yml` maps to the host through `LAMBDA_DOCKER_FLAGS`.
 */
export const HOST_FROM_LAMBDA = "host.docker.internal";

/** The dummy identity LocalStack accepts (any works; cdklocal defaults to this one). */
const LOCALSTACK_CREDENTIALS = { AWS_ACCESS_KEY_ID: "test", AWS_SECRET_ACCESS_KEY: "test" };
const DEFAULT_REGION = "us-east-1";

/** The variables cdklocal keeps rather than strips (it drops every other `AWS_*` but endpoints). */
const KEPT_BY_CDKLOCAL = [
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
];

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value.trim();

/** The variables {@link cdklocalEnv} sets; the named ones are what a client needs to follow it. */
export type CdklocalEnv = Record<string, string> & {
  readonly AWS_REGION: string;
  readonly AWS_ACCESS_KEY_ID: string;
  readonly AWS_SECRET_ACCESS_KEY: string;
};

/** Loopback addresses, as URL hosts, that an endpoint may name instead of `localhost`. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "[::1]"]);

/**
 * `endpoint` with a loopback address as its host spelled `localhost`. The CDK CLI hands
 * CloudFormation the template as an S3 URL on the endpoint's host, and an emulator's
 * CloudFormation reads its own S3 only when that host is `localhost` (moto: at
 * `http://127.0.0.1:<port>` it answers "The specified bucket does not exist"). Anything else,
 * and a value that is not a URL, is kept as given.
 */
export const localhostForLoopback = (endpoint: string): string => {
  if (!URL.canParse(endpoint)) return endpoint;
  const url = new URL(endpoint);
  if (!LOOPBACK_HOSTS.has(url.hostname)) return endpoint;
  url.hostname = "localhost";
  return url.href.replace(/\/$/, endpoint.endsWith("/") ? "/" : "");
};

/**
 * The environment `cdklocal` 3.x needs, built over `env`. It refuses `AWS_ENDPOINT_URL` without
 * `AWS_ENDPOINT_URL_S3` (it cannot tell whether the endpoint serves bucket subdomains), so the S3
 * endpoint defaults to the same gateway: the CDK CLI addresses a loopback S3 endpoint path-style.
 * It also drops `AWS_REGION` and the credentials unless `AWS_ENVAR_ALLOWLIST` names them, so they
 * are listed, and a stray `AWS_PROFILE` is left for cdklocal to strip. A loopback address is
 * spelled `localhost` ({@link localhostForLoopback}).
 */
export const cdklocalEnv = (env: NodeJS.ProcessEnv): CdklocalEnv => {
  const endpoint = localhostForLoopback(
    nonEmpty(env[ENDPOINT_ENV.ALL]) ?? DEFAULT_LOCALSTACK_ENDPOINT,
  );
  const region = nonEmpty(env.AWS_REGION) ?? nonEmpty(env.AWS_DEFAULT_REGION) ?? DEFAULT_REGION;
  const allowList = new Set([
    ...(env.AWS_ENVAR_ALLOWLIST ?? "").split(",").map((name) => name.trim()),
    ...KEPT_BY_CDKLOCAL,
  ]);
  allowList.delete("");
  return {
    [ENDPOINT_ENV.ALL]: endpoint,
    AWS_ENDPOINT_URL_S3: localhostForLoopback(nonEmpty(env.AWS_ENDPOINT_URL_S3) ?? endpoint),
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_ACCESS_KEY_ID: nonEmpty(env.AWS_ACCESS_KEY_ID) ?? LOCALSTACK_CREDENTIALS.AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY:
      nonEmpty(env.AWS_SECRET_ACCESS_KEY) ?? LOCALSTACK_CREDENTIALS.AWS_SECRET_ACCESS_KEY,
    AWS_ENVAR_ALLOWLIST: [...allowList].join(","),
  };
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The `ricochet` context for a LocalStack deployment: the one from `cdk.json`, with `extraHosts`
 * added to `allowedTargetHosts` so the deployed orchestrator may call a receiver on the
 * developer's machine. Given on the command line (`-c ricochet=...`), it replaces `cdk.json`'s
 * value as a whole, hence the copy of every other setting.
 */
export const localStackContext = (
  cdkJsonContext: unknown,
  extraHosts: readonly string[],
): Record<string, unknown> => {
  const base = isRecord(cdkJsonContext) ? cdkJsonContext : {};
  const hosts = Array.isArray(base.allowedTargetHosts) ? base.allowedTargetHosts : [];
  return { ...base, allowedTargetHosts: [...new Set([...hosts, ...extraHosts])] };
};
