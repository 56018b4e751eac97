import { ENDPOINT_ENV } from "../adapters/aws-clients.js";
import { ENV } from "../contract/environment.js";
import { describeShortWindow, judgeRetryWindow } from "../core/retry-window.js";
import { describeBreakers } from "./dev-breaker-setting.js";
import type { DevSession } from "./dev-session.js";

const quote = (value: string): string => `'${value.replaceAll("'", "'\\''")}'`;

/**
 * What a producer needs to use the local Ricochet: endpoints, resources, the variables to export,
 * a submission by the `ricochet` CLI and by the AWS CLI, and the web console's address (its
 * token included) when one runs. `overrides` lists what differs from
 * the deployed configuration, so nobody mistakes the demo's policy for the real one.
 */
export const renderBanner = (
  session: DevSession,
  overrides: readonly string[],
  consoleUrl?: string,
): string => {
  const { local, config, resources, settings } = session;
  const example = JSON.stringify({
    eventId: "hello-1",
    target: { type: "http", url: "https://example.com/hook" },
    payload: { hello: "world" },
  });
  const exports = Object.entries(session.producerEnv).map(([k, v]) => `  export ${k}=${quote(v)}`);
  return [
    "Ricochet is running locally (provisioned from the synthesized CDK template).",
    "",
    ...(consoleUrl === undefined ? [] : [`  web console        ${consoleUrl}`]),
    `  SQS endpoint       ${local.endpoints.sqs}${local.startedEmulators ? "" : " (external)"}`,
    `  DynamoDB endpoint  ${local.endpoints.dynamodb}`,
    `  emulator pids      ${local.pids.length === 0 ? "none (external endpoints)" : local.pids.join(", ")}`,
    `  ingress queue      ${config.ingressQueueUrl}`,
    `  dead-letter queue  ${config.deadLetterQueueUrl}`,
    `  attempt table      ${config.tableName}`,
    `  poller             batch ${settings.poller.batchSize}, window ${settings.poller.batchingWindowMs} ms, concurrency ${settings.poller.maxConcurrency}, timeout ${settings.poller.functionTimeoutMs} ms`,
    `  default policy     ${session.orchestratorEnv[ENV.DEFAULT_POLICY] ?? "{}"}`,
    ...shortWindowWarning(session),
    `  circuit breakers   ${describeBreakers(config.circuitBreaker)}`,
    `  allowed hosts      ${config.allowedTargetHosts.join(", ") || "none (loopback and private targets are refused; --allow-host adds one)"}`,
    ...overrides.map((o) => `  override           ${o}`),
    ...resources.notes.map((n) => `  note               ${n}`),
    "",
    "In another shell:",
    ...exports,
    `  echo ${quote(example)} > envelope.json`,
    "  npx ricochet submit --file envelope.json",
    "  # The Python aws CLI (1.x) ignores AWS_ENDPOINT_URL_SQS: give each aws sqs call --endpoint-url.",
    `  aws sqs send-message --endpoint-url "$${ENDPOINT_ENV.SQS}" --queue-url "$${ENV.INGRESS_QUEUE_URL}" --message-body file://envelope.json`,
    "",
    "Press Ctrl-C to stop (emulators included).",
    "",
  ].join("\n");
};

/**
 * The synth warning's sentence, when the policy running here retries for less than a minute in
 * all: the demo's policy does on purpose (the story fits in seconds), and says so, so that
 * nobody copies it into a deployment.
 */
const shortWindowWarning = (session: DevSession): string[] => {
  const window = judgeRetryWindow(session.config.defaultPolicy);
  return window.short ? [`  warning            ${describeShortWindow(window)}`] : [];
};
