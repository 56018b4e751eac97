import { App, Stack } from "aws-cdk-lib";
import type { IConstruct } from "constructs";
import { describe, expect, it, vi } from "vitest";
import { RetryOrchestrator } from "../../lib/infra/retry-orchestrator.js";

/*
 * A user's app may run an aws-cdk-lib from before the `Validations` class (2026): the construct
 * acknowledges cdk-nag 3 findings through it, and must still synthesize there, acknowledging
 * nothing, rather than fail at load.
 */
vi.mock("aws-cdk-lib", async (importOriginal) => ({
  ...(await importOriginal<typeof import("aws-cdk-lib")>()),
  // Undefined rather than left out: vitest's mock throws on reading a name it does not have,
  // where a real module namespace without the export reads as undefined.
  Validations: undefined,
}));

/** What `Validations.acknowledge` writes on a construct (aws-cdk-lib's metadata key). */
const ACKNOWLEDGED = "aws:cdk:acknowledged-rules";

const acknowledgements = (root: IConstruct): unknown[] =>
  root.node
    .findAll()
    .flatMap((construct) => construct.node.metadata.filter((entry) => entry.type === ACKNOWLEDGED));

describe("the construct on an aws-cdk-lib without Validations", () => {
  it("synthesizes, and acknowledges no cdk-nag finding", async () => {
    expect((await import("aws-cdk-lib")).Validations).toBeUndefined();
    const app = new App({ context: { "aws:cdk:bundling-stacks": [] } });
    const stack = new Stack(app, "Older");
    new RetryOrchestrator(stack, "Retries");

    const template = app.synth().getStackByName("Older").template as {
      Resources: Record<string, { Type: string }>;
    };

    expect(
      Object.values(template.Resources).filter((r) => r.Type === "AWS::Lambda::Function"),
    ).toHaveLength(2);
    expect(acknowledgements(app)).toEqual([]);
  });
});
