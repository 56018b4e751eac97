import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Stack, Validations } from "aws-cdk-lib";
import { Key } from "aws-cdk-lib/aws-kms";
import { Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Queue } from "aws-cdk-lib/aws-sqs";
import { AwsSolutionsChecks } from "cdk-nag";
import { afterAll, describe, expect, it } from "vitest";
import { RetryOrchestrator } from "../../lib/infra/retry-orchestrator.js";
import { OrchestratorEncryption } from "../../lib/infra/retry-orchestrator-props.js";
import { buildRicochetApp } from "../../lib/infra/ricochet-app.js";

/** The part of CDK's validation report (`validation-report.json`) these tests read. */
interface ValidationReport {
  readonly pluginReports: readonly {
    readonly pluginName: string;
    readonly violations: readonly { readonly ruleName: string }[];
    readonly suppressedViolations?: readonly {
      readonly ruleName: string;
      readonly reason?: string;
    }[];
  }[];
}

const outdirs: string[] = [];
const outdir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "ricochet-nag-"));
  outdirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Synthesizes the app. cdk-nag 3 runs as a validation plugin: an unacknowledged error finding
 * makes `synth()` throw with the report; every finding, warnings included, lands in the report.
 */
const synthReport = (app: App): ValidationReport => {
  const assembly = app.synth();
  return JSON.parse(
    readFileSync(join(assembly.directory, "validation-report.json"), "utf8"),
  ) as ValidationReport;
};

const unacknowledged = (report: ValidationReport): string[] =>
  report.pluginReports.flatMap((plugin) =>
    plugin.violations.map((violation) => `${plugin.pluginName}: ${violation.ruleName}`),
  );

describe("cdk-nag AwsSolutions", () => {
  it("finds nothing unacknowledged in the Ricochet app, and every acknowledgement has a reason", () => {
    const { app } = buildRicochetApp({ outdir: outdir() });
    const report = synthReport(app);
    expect(report.pluginReports.map((plugin) => plugin.pluginName)).toContain("AwsSolutions");
    expect(unacknowledged(report)).toEqual([]);
    const acknowledged = report.pluginReports.flatMap((p) => p.suppressedViolations ?? []);
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const finding of acknowledged) {
      expect(finding.reason, finding.ruleName).toMatch(/\w{3,}/);
    }
  });

  it("finds nothing unacknowledged with a KMS key, a signing secret and Lambda targets", () => {
    const app = new App({ outdir: outdir() });
    const stack = new Stack(app, "Custom");
    new RetryOrchestrator(stack, "Retries", {
      encryption: OrchestratorEncryption.kms(new Key(stack, "Key", { enableKeyRotation: true })),
      signingSecret: Secret.fromSecretCompleteArn(
        stack,
        "Signing",
        "arn:aws:secretsmanager:eu-west-1:123456789012:secret:signing-AbCdEf",
      ),
      lambdaTargets: ["arn:aws:lambda:eu-west-1:123456789012:function:downstream"],
    });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(unacknowledged(synthReport(app))).toEqual([]);
  });

  it("fails synthesis on a finding nobody acknowledged (the check is live)", () => {
    const app = new App({ outdir: outdir() });
    const stack = new Stack(app, "Careless");
    new Queue(stack, "Plain", { enforceSSL: false });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
  });
});
