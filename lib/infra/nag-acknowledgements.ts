import { type CfnElement, Stack, Validations } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import type { IKey } from "aws-cdk-lib/aws-kms";
import type { IFunction } from "aws-cdk-lib/aws-lambda";

/** cdk-nag's AwsSolutions rule ids, as `Validations.acknowledge` expects them. */
const rule = (id: string, finding: string): string =>
  `AwsSolutions::AwsSolutions-${id}[${finding}]`;

/** What the orchestrator's acknowledgements are scoped to. */
export interface NagScopes {
  readonly functions: readonly IFunction[];
  readonly table: ITable;
  readonly key: IKey | undefined;
}

/**
 * Acknowledges the cdk-nag (AwsSolutions) findings the orchestrator accepts on purpose, each on
 * the narrowest construct that raises it (a function's role), naming the exact finding and why.
 * Anything else cdk-nag reports stays an error.
 */
export const acknowledgeOrchestratorFindings = ({ functions, table, key }: NagScopes): void => {
  const stack = Stack.of(table);
  // The finding names the table by its logical id, as the synthesized policy refers to it.
  const tableLogicalId = stack.getLogicalId(table.node.defaultChild as CfnElement);
  for (const fn of functions) {
    const role = fn.role;
    if (role === undefined) continue;
    const roleScope = Validations.of(role);
    roleScope.acknowledge(
      {
        id: rule(
          "IAM4",
          "Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
        ),
        reason:
          "AWSLambdaBasicExecutionRole only lets the function write its own CloudWatch logs; it is the standard Lambda execution policy.",
      },
      {
        id: rule("IAM5", "Resource::*"),
        reason:
          "X-Ray active tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions.",
      },
      {
        id: rule("IAM5", `Resource::<${tableLogicalId}.Arn>/index/*`),
        reason:
          "The grant on the record table covers its indexes; listing by status queries the byStatus index, the only index.",
      },
    );
    if (key !== undefined) {
      roleScope.acknowledge(
        ...["kms:GenerateDataKey*", "kms:ReEncrypt*"].map((action) => ({
          id: rule("IAM5", `Action::${action}`),
          reason:
            "KMS grants for the orchestrator's own key (SQS and DynamoDB encryption); the wildcard spans variants of one operation on that key only.",
        })),
      );
    }
  }
};
