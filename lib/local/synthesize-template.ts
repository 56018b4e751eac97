import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../infra/bundling.js";
import { buildRicochetApp } from "../infra/ricochet-app.js";

/** A CloudFormation template as synthesized: only the parts local runs read are typed. */
export interface CfnTemplate {
  readonly Resources: Readonly<Record<string, CfnResource>>;
}

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Readonly<Record<string, unknown>>;
}

/** CDK context key listing the stacks whose assets are bundled; empty means none. */
const BUNDLING_STACKS = "aws:cdk:bundling-stacks";

export interface SynthesizeTemplateOptions {
  /** Context merged over `cdk.json`'s, e.g. a different `ricochet` setting. */
  readonly context?: Readonly<Record<string, unknown>>;
  /**
   * Where `cdk.json` is read from; the repository root by default. Installed as a package there is
   * none, and the construct's defaults apply.
   */
  readonly cdkJsonPath?: string;
}

/**
 * The `context` object of the `cdk.json` at `path`: empty when it has none, or when there is no
 * such file (the package ships none).
 */
export const cdkJsonContext = (path: string): Record<string, unknown> => {
  if (!existsSync(path)) return {};
  const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (typeof parsed !== "object" || parsed === null || !("context" in parsed)) return {};
  const { context } = parsed;
  return typeof context === "object" && context !== null ? { ...context } : {};
};

/**
 * Synthesizes the Ricochet stack in this process, as `cdk synth` would with `cdk.json`'s context,
 * and returns its template. The Lambda code is not bundled: local runs execute the handlers'
 * library code directly, so esbuild would only cost time.
 */
export const synthesizeTemplate = (options: SynthesizeTemplateOptions = {}): CfnTemplate => {
  const outdir = mkdtempSync(join(tmpdir(), "ricochet-synth-"));
  try {
    const { app, stack } = buildRicochetApp({
      outdir,
      context: {
        ...cdkJsonContext(options.cdkJsonPath ?? join(PROJECT_ROOT, "cdk.json")),
        ...options.context,
        [BUNDLING_STACKS]: [],
      },
    });
    const template: unknown = app.synth().getStackByName(stack.stackName).template;
    if (typeof template !== "object" || template === null || !("Resources" in template)) {
      throw new Error("the synthesized template has no Resources");
    }
    return template as CfnTemplate;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};
