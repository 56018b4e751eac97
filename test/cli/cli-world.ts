import { createRedriveWorld, type RedriveWorld } from "../support/redrive-world.js";

/** Fresh queues and table on the emulators, and the flags that point the CLI at them. */
export interface CliWorld extends RedriveWorld {
  /** `--queue-url … --internal-queue-url … --dead-letter-queue-url … --table …` */
  readonly resources: readonly string[];
}

/** The resource flags (lib/cli/resources.ts) naming a world's queues and table. */
export const resourceFlags = (
  world: Pick<
    RedriveWorld,
    "ingressQueueUrl" | "internalQueueUrl" | "deadLetterQueueUrl" | "tableName"
  >,
): string[] => [
  "--queue-url",
  world.ingressQueueUrl,
  "--internal-queue-url",
  world.internalQueueUrl,
  "--dead-letter-queue-url",
  world.deadLetterQueueUrl,
  "--table",
  world.tableName,
];

/** Creates the queues and table (names start with `prefix`) a CLI test file runs against. */
export const createCliWorld = async (prefix: string): Promise<CliWorld> => {
  const world = await createRedriveWorld(prefix);
  return { ...world, resources: resourceFlags(world) };
};
