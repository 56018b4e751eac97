import { CfnOutput, Stack, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { STACK_OUTPUTS } from "../contract/stack-outputs.js";
import { RetryOrchestrator } from "./retry-orchestrator.js";
import type { RetryOrchestratorProps } from "./retry-orchestrator-props.js";

/** Props of {@link RicochetStack}. */
export interface RicochetStackProps extends StackProps {
  /**
   * Configuration of the stack's orchestrator.
   * @default - the construct's defaults
   */
  readonly orchestrator?: RetryOrchestratorProps;
}

/** What the console shows beside an output: only the deprecated one needs saying. */
const DESCRIPTIONS: Partial<Record<string, string>> = {
  [STACK_OUTPUTS.REDRIVE_FUNCTION_NAME]: `Deprecated: read ${STACK_OUTPUTS.OPERATOR_FUNCTION_NAME}, the same function.`,
};

/** The deployable Ricochet: one {@link RetryOrchestrator} and the outputs the CLI reads. */
export class RicochetStack extends Stack {
  public readonly orchestrator: RetryOrchestrator;

  public constructor(scope: Construct, id: string, props: RicochetStackProps = {}) {
    super(scope, id, {
      description: "Ricochet: serverless retry orchestrator (SQS, Lambda, DynamoDB).",
      ...props,
    });
    const orchestrator = new RetryOrchestrator(this, "Orchestrator", props.orchestrator);
    this.orchestrator = orchestrator;

    const outputs: Record<(typeof STACK_OUTPUTS)[keyof typeof STACK_OUTPUTS], string> = {
      [STACK_OUTPUTS.INGRESS_QUEUE_URL]: orchestrator.ingressQueue.queueUrl,
      [STACK_OUTPUTS.INTERNAL_QUEUE_URL]: orchestrator.internalQueue.queueUrl,
      [STACK_OUTPUTS.DEAD_LETTER_QUEUE_URL]: orchestrator.deadLetterQueue.queueUrl,
      [STACK_OUTPUTS.TABLE_NAME]: orchestrator.table.tableName,
      [STACK_OUTPUTS.ORCHESTRATOR_FUNCTION_NAME]: orchestrator.orchestratorFunction.functionName,
      [STACK_OUTPUTS.OPERATOR_FUNCTION_NAME]: orchestrator.operatorFunction.functionName,
      [STACK_OUTPUTS.REDRIVE_FUNCTION_NAME]: orchestrator.operatorFunction.functionName,
      [STACK_OUTPUTS.DASHBOARD_NAME]: orchestrator.dashboard.dashboardName,
    };
    for (const [key, value] of Object.entries(outputs)) {
      new CfnOutput(this, key, { value, description: DESCRIPTIONS[key] });
    }
  }
}
