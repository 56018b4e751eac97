/*
 * The deployed stack's name and output keys. The CDK stack declares its outputs under these
 * keys and the `ricochet` CLI finds the deployment's queues, table and functions by them, so
 * they are declared here, once, for both.
 */

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
  OPERATOR_FUNCTION_NAME: "OperatorFunctionName",
  /**
   * @deprecated The former key of `OPERATOR_FUNCTION_NAME`, still emitted with the same value so
   * that scripts reading it keep working for one more release; read `OperatorFunctionName`.
   */
  REDRIVE_FUNCTION_NAME: "RedriveFunctionName",
  DASHBOARD_NAME: "DashboardName",
} as const;

/** The default name of the deployed stack, which the CLI reads unless `--stack` says otherwise. */
export const DEFAULT_STACK_NAME = "Ricochet";
