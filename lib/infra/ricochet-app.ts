import { App, type AppProps, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { CONTEXT_KEY, readAppSettings } from "./app-context.js";
import { RicochetStack } from "./ricochet-stack.js";

/**
 * Builds the Ricochet CDK app: one {@link RicochetStack} configured from the `ricochet` context,
 * checked by cdk-nag's AwsSolutions pack at synth. `bin/app.ts` synthesizes it; tests build it
 * with their own context.
 */
export const buildRicochetApp = (props: AppProps = {}): { app: App; stack: RicochetStack } => {
  const app = new App(props);
  const settings = readAppSettings(app.node.tryGetContext(CONTEXT_KEY));
  const stack = new RicochetStack(app, settings.stackName, {
    stackName: settings.stackName,
    orchestrator: settings.orchestrator,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
};
