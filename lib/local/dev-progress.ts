/*
 * What `npm start` says while it starts, step by step, before the banner: on a loaded machine
 * the emulators and the template's synthesis take most of a minute, and silence looks like a hang.
 */

/** One step of a local start, as it happens. */
export type DevStep =
  /** `starting`: the emulators this run starts; `external`: services on a configured endpoint. */
  | {
      readonly kind: "starting";
      readonly starting: readonly string[];
      readonly external: readonly string[];
    }
  | { readonly kind: "synthesizing" }
  | { readonly kind: "synthesized"; readonly resources: number }
  | { readonly kind: "emulators-ready"; readonly sqs: string; readonly dynamodb: string }
  | { readonly kind: "provisioned"; readonly queues: number; readonly tables: number }
  | { readonly kind: "polling"; readonly queues: number };

/** Where a local start reports its steps (stderr under `npm start`). */
export type DevProgress = (step: DevStep) => void;

const plural = (count: number, one: string): string => `${count} ${one}${count === 1 ? "" : "s"}`;

const describeStep = (step: DevStep): string => {
  switch (step.kind) {
    case "starting":
      return step.starting.length === 0
        ? `using the configured endpoints for ${step.external.join(" and ")}, starting no emulator`
        : `starting ${step.starting.join(" and ")} in the background` +
            (step.external.length === 0
              ? ""
              : ` (${step.external.join(" and ")}: the configured endpoint)`);
    case "synthesizing":
      return "synthesizing the CDK template (the stack `cdk deploy` deploys, from cdk.json)…";
    case "synthesized":
      return `template synthesized: ${plural(step.resources, "resource")}`;
    case "emulators-ready":
      return `SQS answers at ${step.sqs}, DynamoDB at ${step.dynamodb}`;
    case "provisioned":
      return `created the template's ${plural(step.queues, "queue")} and ${plural(step.tables, "table")}`;
    case "polling":
      return `orchestrator polling ${plural(step.queues, "queue")}, as the event source mappings would`;
  }
};

/** A step as one line, with the seconds since the start began (`[ 12.3 s] …`). */
export const progressLine = (step: DevStep, elapsedMs: number): string =>
  `[${(elapsedMs / 1000).toFixed(1).padStart(5)} s] ${describeStep(step)}`;
