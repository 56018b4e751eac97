import * as cdk from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import type { IKey } from "aws-cdk-lib/aws-kms";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import type { IConstruct } from "constructs";

/** cdk-nag's AwsSolutions rule ids, as `Validations.acknowledge` expects them. */
const rule = (id: string, finding: string): string =>
  `AwsSolutions::AwsSolutions-${id}[${finding}]`;

/** What the orchestrator's acknowledgements are scoped to. */
export interface NagScopes {
  readonly functions: readonly IFunction[];
  readonly table: ITable;
  readonly key: IKey | undefined;
}

/** One acknowledged finding, as `Validations.acknowledge` takes it. */
interface Acknowledgement {
  readonly id: string;
  readonly reason: string;
}

type Acknowledge = (scope: IConstruct, ...findings: Acknowledgement[]) => void;

/**
 * `Validations.of(scope).acknowledge`, or undefined on an aws-cdk-lib that predates it (2026's
 * `Validations` class). Read through the namespace, because a named import of a missing export
 * fails the whole module at load: a user's app on an older aws-cdk-lib would not synthesize at
 * all for the sake of acknowledgements only cdk-nag 3 (which needs the newer aws-cdk-lib) reads.
 */
const validationsAcknowledge = (): Acknowledge | undefined => {
  const validations: unknown = (cdk as Record<string, unknown>).Validations;
  if (typeof validations !== "function" || !("of" in validations)) return undefined;
  const of = validations.of as (scope: IConstruct) => { acknowledge?: unknown };
  return (scope, ...findings) => {
    const target = of(scope);
    if (typeof target.acknowledge === "function") target.acknowledge(...findings);
  };
};

/**
 * Acknowledges the cdk-nag (AwsSolutions) findings the orchestrator accepts on purpose, each on
 * the narrowest construct that raises it (a function's role), naming the exact finding and why.
 * Anything else cdk-nag reports stays an error. On an aws-cdk-lib without `Validations` it does
 * nothing: there is no cdk-nag 3 to read the acknowledgements there.
 */
export const acknowledgeOrchestratorFindings = ({ functions, table, key }: NagScopes): void => {
  const acknowledge = validationsAcknowledge();
  if (acknowledge === undefined) return;
  const stack = cdk.Stack.of(table);
  // The finding names the table by its logical id, as the synthesized policy refers to it.
  const tableLogicalId = stack.getLogicalId(table.node.defaultChild as cdk.CfnElement);
  for (const fn of functions) {
    const role = fn.role;
    if (role === undefined) continue;
    acknowledge(
      role,
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
      acknowledge(
        role,
        ...["kms:GenerateDataKey*", "kms:ReEncrypt*"].map((action) => ({
          id: rule("IAM5", `Action::${action}`),
          reason:
            "KMS grants for the orchestrator's own key (SQS and DynamoDB encryption); the wildcard spans variants of one operation on that key only.",
        })),
      );
    }
  }
};
