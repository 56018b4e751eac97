import type { CloudFormationClient } from "@aws-sdk/client-cloudformation";
import type { Command } from "commander";
import { ENV } from "../contract/environment.js";
import { DEFAULT_STACK_NAME, STACK_OUTPUTS } from "../contract/stack-outputs.js";
import { ConfigurationError, errorMessage, ResourceNotFoundError } from "../core/errors.js";

/*
 * Where the CLI finds the deployment's resources: an explicit flag wins, then the RICOCHET_*
 * environment variable the functions use, then the deployed stack's outputs (looked up only
 * when something is still missing, so local runs never need CloudFormation).
 */

/** The stack outputs each resource is read from. */
export const STACK_OUTPUT = {
  ingressQueueUrl: STACK_OUTPUTS.INGRESS_QUEUE_URL,
  internalQueueUrl: STACK_OUTPUTS.INTERNAL_QUEUE_URL,
  deadLetterQueueUrl: STACK_OUTPUTS.DEAD_LETTER_QUEUE_URL,
  tableName: STACK_OUTPUTS.TABLE_NAME,
  operatorFunctionName: STACK_OUTPUTS.OPERATOR_FUNCTION_NAME,
} as const;
export type ResourceName = keyof typeof STACK_OUTPUT;

/** Where a stack deployed before an output's rename holds the resource instead. */
const FORMER_STACK_OUTPUT: Readonly<Partial<Record<ResourceName, string>>> = {
  operatorFunctionName: STACK_OUTPUTS.REDRIVE_FUNCTION_NAME,
};

const FLAG: Readonly<Record<ResourceName, string>> = {
  ingressQueueUrl: "--queue-url",
  internalQueueUrl: "--internal-queue-url",
  deadLetterQueueUrl: "--dead-letter-queue-url",
  tableName: "--table",
  operatorFunctionName: "--function <name>",
};

const ENV_VAR: Readonly<Partial<Record<ResourceName, string>>> = {
  ingressQueueUrl: ENV.INGRESS_QUEUE_URL,
  internalQueueUrl: ENV.INTERNAL_QUEUE_URL,
  deadLetterQueueUrl: ENV.DEAD_LETTER_QUEUE_URL,
  tableName: ENV.TABLE_NAME,
};

/** The flags {@link addResourceOptions} adds, as commander parses them. */
export interface ResourceFlags {
  readonly queueUrl?: string | undefined;
  readonly internalQueueUrl?: string | undefined;
  readonly deadLetterQueueUrl?: string | undefined;
  readonly table?: string | undefined;
  readonly stack?: string | undefined;
}

/**
 * Adds `--queue-url`, `--internal-queue-url`, `--dead-letter-queue-url`, `--table` and `--stack`
 * to a command.
 */
export const addResourceOptions = (command: Command): Command =>
  command
    .option("--queue-url <url>", `ingress queue URL (default: $${ENV.INGRESS_QUEUE_URL} or stack)`)
    .option(
      "--internal-queue-url <url>",
      `internal queue URL, for redrives (default: $${ENV.INTERNAL_QUEUE_URL} or stack)`,
    )
    .option(
      "--dead-letter-queue-url <url>",
      `dead-letter queue URL (default: $${ENV.DEAD_LETTER_QUEUE_URL} or stack)`,
    )
    .option("--table <name>", `attempt table (default: $${ENV.TABLE_NAME} or stack)`)
    .option("--stack <name>", "CloudFormation stack to read outputs from", DEFAULT_STACK_NAME);

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value.trim();

const fromFlags = (flags: ResourceFlags, name: ResourceName): string | undefined => {
  switch (name) {
    case "ingressQueueUrl":
      return nonEmpty(flags.queueUrl);
    case "internalQueueUrl":
      return nonEmpty(flags.internalQueueUrl);
    case "deadLetterQueueUrl":
      return nonEmpty(flags.deadLetterQueueUrl);
    case "tableName":
      return nonEmpty(flags.table);
    case "operatorFunctionName":
      return undefined;
  }
};

const stackOutputs = async (
  cloudformation: CloudFormationClient,
  stackName: string,
): Promise<Map<string, string>> => {
  // Imported on use: only a command that reads a stack's outputs pays for the client's load.
  const { DescribeStacksCommand } = await import("@aws-sdk/client-cloudformation");
  try {
    const { Stacks } = await cloudformation.send(
      new DescribeStacksCommand({ StackName: stackName }),
    );
    const outputs = new Map<string, string>();
    for (const output of Stacks?.[0]?.Outputs ?? []) {
      if (output.OutputKey !== undefined && output.OutputValue !== undefined) {
        outputs.set(output.OutputKey, output.OutputValue);
      }
    }
    return outputs;
  } catch (error) {
    const detail = errorMessage(error);
    throw new ResourceNotFoundError(`cannot read stack ${stackName}: ${detail}`, { cause: error });
  }
};

/**
 * Resolves the named resources, flags first, then environment, then stack outputs.
 * @throws ConfigurationError when one is found nowhere, naming the flag that sets it.
 * @throws ResourceNotFoundError when the stack had to be read and could not be.
 */
export const resolveResources = async <N extends ResourceName>(
  names: readonly N[],
  flags: ResourceFlags,
  sources: {
    readonly env: NodeJS.ProcessEnv;
    readonly cloudformation: () => Promise<CloudFormationClient>;
  },
): Promise<Record<N, string>> => {
  const found = new Map<ResourceName, string>();
  for (const name of names) {
    const envVar = ENV_VAR[name];
    const value =
      fromFlags(flags, name) ?? (envVar === undefined ? undefined : nonEmpty(sources.env[envVar]));
    if (value !== undefined) found.set(name, value);
  }
  const missing = names.filter((name) => !found.has(name));
  if (missing.length > 0) {
    const stackName = nonEmpty(flags.stack) ?? DEFAULT_STACK_NAME;
    const outputs = await stackOutputs(await sources.cloudformation(), stackName);
    for (const name of missing) {
      const former = FORMER_STACK_OUTPUT[name];
      const value =
        outputs.get(STACK_OUTPUT[name]) ?? (former === undefined ? undefined : outputs.get(former));
      if (value === undefined) {
        const envVar = ENV_VAR[name];
        throw new ConfigurationError(
          `no ${name}: pass ${FLAG[name]}${envVar === undefined ? "" : `, set ${envVar}`}, or deploy stack ${stackName} with output ${STACK_OUTPUT[name]}`,
        );
      }
      found.set(name, value);
    }
  }
  return Object.fromEntries(found) as Record<N, string>;
};
