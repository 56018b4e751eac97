import { userInfo } from "node:os";
import type { AwsClients } from "../adapters/aws-clients.js";
import { CallerSource } from "../core/record.js";
import type { OperatorPorts } from "../runtime/create-operator-ports.js";
import { type ResourceFlags, type ResourceName, resolveResources } from "./resources.js";

/**
 * The adapters a command asks for, built over one set of SDK clients from the standard AWS
 * configuration (AWS_ENDPOINT_URL* included). Only what a command names is resolved, so
 * `submit` works with just a queue URL.
 */
export interface AwsSession extends OperatorPorts {
  readonly clients: AwsClients;
  ingressQueueUrl(): string;
  operatorFunctionName(): string;
}

/** Runs `work` with a session, closing the clients afterwards so the process exits promptly. */
export const withAwsSession = async <T>(
  needs: readonly ResourceName[],
  flags: ResourceFlags,
  work: (session: AwsSession) => Promise<T>,
): Promise<T> => {
  // Imported when a command runs, not when the CLI starts: loading the AWS SDK clients took most
  // of `ricochet --help`'s time, and help, `policy explain` and usage errors need none of them.
  const [{ createAwsClients }, { createOperatorPorts }] = await Promise.all([
    import("../adapters/aws-clients.js"),
    import("../runtime/create-operator-ports.js"),
  ]);
  const clients = createAwsClients();
  try {
    const resources: Partial<Record<ResourceName, string>> = await resolveResources(needs, flags, {
      env: process.env,
      cloudformation: clients.cloudformation,
    });
    const need = (name: ResourceName): string => {
      const value = resources[name];
      // A command asked for a resource it did not declare: a programming error, not user input.
      if (value === undefined) throw new Error(`resource ${name} was not resolved`);
      return value;
    };
    return await work({
      ...createOperatorPorts({ clients, resource: need, callerSource: CallerSource.OPERATOR }),
      clients,
      ingressQueueUrl: () => need("ingressQueueUrl"),
      operatorFunctionName: () => need("operatorFunctionName"),
    });
  } finally {
    clients.destroy();
  }
};

/** Who is running the CLI, for audit entries: `$USER`, else the OS account name. */
export const callerName = (env: NodeJS.ProcessEnv = process.env): string => {
  const fromEnv = env.USER ?? env.USERNAME;
  if (fromEnv !== undefined && fromEnv.trim() !== "") return fromEnv.trim();
  try {
    return userInfo().username;
  } catch {
    return "unknown";
  }
};
