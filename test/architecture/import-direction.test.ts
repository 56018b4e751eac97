import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type ImportArrow, importArrowsOf, layerViolations } from "./layers.js";

const LIB = fileURLToPath(new URL("../../lib", import.meta.url));

const local = (from: string, to: string): ImportArrow => ({ from, to, local: true });

describe("the import direction of lib/", () => {
  it("has no arrow against the layer order", () => {
    const arrows = importArrowsOf(LIB);
    expect(arrows.length).toBeGreaterThan(300);
    expect(layerViolations(arrows)).toEqual([]);
  });

  it.each([
    ["core importing app", local("core/claim.ts", "app/orchestrator/orchestrator.ts")],
    [
      "the orchestrator importing the operator",
      local("app/orchestrator/attempt.ts", "app/operator/redrive.ts"),
    ],
    [
      "the operator importing the orchestrator",
      local("app/operator/replay.ts", "app/orchestrator/attempt.ts"),
    ],
    [
      "lib/app's shared files importing a program",
      local("app/traced-port.ts", "app/orchestrator/orchestrator-context.ts"),
    ],
    ["core importing an adapter", local("core/claim.ts", "adapters/sqs-errors.ts")],
    [
      "app importing an adapter",
      local("app/orchestrator/orchestrator.ts", "adapters/targets/lambda-target.ts"),
    ],
    ["an adapter importing runtime", local("adapters/sqs-ingress-queue.ts", "runtime/config.ts")],
    ["an adapter importing local", local("adapters/aws-clients.ts", "local/start-fauxqs.ts")],
    ["local importing the CLI", local("local/demo/demo-view.ts", "cli/cli-support.ts")],
    ["infra importing runtime", local("infra/retry-orchestrator.ts", "runtime/config.ts")],
    ["infra importing an adapter", local("infra/retry-orchestrator.ts", "adapters/x.ts")],
    ["contract importing core", local("contract/environment.ts", "core/policy.ts")],
    ["an entry point importing the CLI", local("index.ts", "cli/resources.ts")],
    ["a file outside the layer folders", local("misc/thing.ts", "core/policy.ts")],
    ["lib importing outside lib", local("runtime/config.ts", "../functions/operator.ts")],
    ["core importing the AWS SDK", { from: "core/x.ts", to: "@aws-sdk/client-sqs", local: false }],
    [
      "app importing Powertools",
      { from: "app/x.ts", to: "@aws-lambda-powertools/logger", local: false },
    ],
  ])("refuses %s", (_name, arrow) => {
    expect(layerViolations([arrow])).toHaveLength(1);
  });

  it.each([
    ["app importing core", local("app/orchestrator/orchestrator.ts", "core/claim.ts")],
    [
      "a program importing lib/app's shared files",
      local("app/operator/x.ts", "app/write-spans.ts"),
    ],
    [
      "an adapter importing app",
      local("adapters/lambda-operator-function.ts", "app/operator/redrive.ts"),
    ],
    [
      "infra importing the contract",
      local("infra/retry-orchestrator.ts", "contract/environment.ts"),
    ],
    ["the CLI importing local", local("cli/dev-command.ts", "local/dev-session.ts")],
    [
      "an adapter importing the AWS SDK",
      { from: "adapters/x.ts", to: "@aws-sdk/client-sqs", local: false },
    ],
  ])("allows %s", (_name, arrow) => {
    expect(layerViolations([arrow])).toEqual([]);
  });
});
