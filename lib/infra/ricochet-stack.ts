import { CfnOutput, Stack, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { RetryOrchestrator } from "./retry-orchestrator.js";
import type { RetryOrchestratorProps } from "./retry-orchestrator-props.js";

/**
 * Output keys of the Ricochet stack. The `ricochet` CLI finds the deployment's queues, table and
 * functions by these names, so they are part of the contract.
 */
export const STACK_OUTPUTS = {
  INGRESS_QUEUE_URL: "IngressQueueUrl",
  INTERNAL_QUEUE_URL: "InternalQueueUrl",
  DEAD_LETTER_QUEUE_URL: "DeadLetterQueueUrl",
  TABLE_NAME: "TableName",
  ORCHESTRATOR_FUNCTION_NAME: "OrchestratorFunctionName",
  REDRIVE_FUNCTION_NAME: "RedriveFunctionName",
  DASHBOARD_NAME: "DashboardName",
} as const;

/** The default name of the deployed stack. */
export const DEFAULT_STACK_NAME = "Ricochet";

/** Props of {@link RicochetStack}. */
export interface RicochetStackProps extends StackProps {
  /**
   * Configuration of the stack's orchestrator.
   * @default - the construct's defaults
   */
  readonly orchestrator?: RetryOrchestratorProps;
}

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
      IngressQueueUrl: orchestrator.ingressQueue.queueUrl,
      InternalQueueUrl: orchestrator.internalQueue.queueUrl,
      DeadLetterQueueUrl: orchestrator.deadLetterQueue.queueUrl,
      TableName: orchestrator.table.tableName,
      OrchestratorFunctionName: orchestrator.orchestratorFunction.functionName,
      RedriveFunctionName: orchestrator.redriveFunction.functionName,
      DashboardName: orchestrator.dashboard.dashboardName,
    };
    for (const [key, value] of Object.entries(outputs)) {
      new CfnOutput(this, key, { value });
    }
  }
}
