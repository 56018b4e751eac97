import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkLambdaTarget,
  type LambdaTargetRules,
  parseLambdaFunction,
} from "../../lib/core/lambda-target-policy.js";

const ACCOUNT = "123456789012";
const OTHER = "210987654321";
const ORCHESTRATOR = "Ricochet-RetriesOrchestrator-AbC123";
// The operator function's physical name keeps its construct id, Redrive.
const OPERATOR_FUNCTION = "Ricochet-RetriesRedrive-XyZ789";
const arn = (account: string, name: string, region = "eu-west-1") =>
  `arn:aws:lambda:${region}:${account}:function:${name}`;

const deployment: LambdaTargetRules = {
  ownFunctions: [ORCHESTRATOR, OPERATOR_FUNCTION],
  accountId: ACCOUNT,
  allowedArns: [arn(OTHER, "partner-hook")],
};

describe("parseLambdaFunction", () => {
  it.each([
    ["orders", { name: "orders" }],
    ["orders:live", { name: "orders", qualifier: "live" }],
    ["orders:$LATEST", { name: "orders", qualifier: "$LATEST" }],
    [`${ACCOUNT}:function:orders`, { account: ACCOUNT, name: "orders" }],
    [`${ACCOUNT}:function:orders:7`, { account: ACCOUNT, name: "orders", qualifier: "7" }],
    [arn(ACCOUNT, "orders"), { account: ACCOUNT, name: "orders" }],
    [
      `arn:aws-cn:lambda:cn-north-1:${ACCOUNT}:function:orders:live`,
      { account: ACCOUNT, name: "orders", qualifier: "live" },
    ],
  ])("reads %s", (text, expected) => {
    expect(parseLambdaFunction(text)).toEqual({
      account: undefined,
      qualifier: undefined,
      ...expected,
    });
  });

  it.each([
    "",
    "my function",
    `arn:aws:sqs:eu-west-1:${ACCOUNT}:queue`,
    "12345:function:orders",
    "a:b:c",
  ])("refuses %j", (text) => {
    expect(parseLambdaFunction(text)).toBeUndefined();
  });
});

describe("checkLambdaTarget", () => {
  it.each<[string, string, LambdaTargetRules, string | undefined]>([
    // Ricochet's own functions, however they are named.
    ["the orchestrator by name", ORCHESTRATOR, deployment, `own function ${ORCHESTRATOR}`],
    ["the orchestrator by alias", `${ORCHESTRATOR}:live`, deployment, "own function"],
    ["the orchestrator in other case", ORCHESTRATOR.toLowerCase(), deployment, "own function"],
    [
      "the orchestrator by partial ARN",
      `${ACCOUNT}:function:${ORCHESTRATOR}`,
      deployment,
      "own function",
    ],
    ["the orchestrator by full ARN", arn(ACCOUNT, ORCHESTRATOR), deployment, "own function"],
    [
      "the orchestrator by an ARN of another region",
      arn(ACCOUNT, ORCHESTRATOR, "us-east-1"),
      deployment,
      "own function",
    ],
    [
      "the operator function by name",
      OPERATOR_FUNCTION,
      deployment,
      `own function ${OPERATOR_FUNCTION}`,
    ],
    [
      "the operator function by ARN and version",
      `${arn(ACCOUNT, OPERATOR_FUNCTION)}:3`,
      deployment,
      "own",
    ],
    [
      "an own function listed by mistake",
      ORCHESTRATOR,
      { ...deployment, allowedArns: [arn(ACCOUNT, ORCHESTRATOR)] },
      "own function",
    ],
    [
      "an own function given as an ARN, by name",
      ORCHESTRATOR,
      { ...deployment, ownFunctions: [arn(ACCOUNT, ORCHESTRATOR)] },
      "own function",
    ],
    [
      "an own function with the account unknown",
      arn(ACCOUNT, ORCHESTRATOR),
      { ownFunctions: [ORCHESTRATOR], allowedArns: [] },
      "own function",
    ],
    // Functions of the deployment's account.
    ["a bare name", "orders", deployment, undefined],
    ["an alias", "orders:live", deployment, undefined],
    ["a partial ARN in the account", `${ACCOUNT}:function:orders`, deployment, undefined],
    ["a full ARN in the account", arn(ACCOUNT, "orders"), deployment, undefined],
    [
      "a function named like an own one, in another account, listed",
      arn(OTHER, ORCHESTRATOR),
      { ...deployment, allowedArns: [arn(OTHER, ORCHESTRATOR)] },
      undefined,
    ],
    ["a bare name with nothing known", "orders", { ownFunctions: [], allowedArns: [] }, undefined],
    // Other accounts.
    [
      "an unlisted function of another account",
      arn(OTHER, "orders"),
      deployment,
      `account ${OTHER}`,
    ],
    [
      "an unlisted partial ARN of another account",
      `${OTHER}:function:orders`,
      deployment,
      `account ${OTHER} is not the deployment's (${ACCOUNT})`,
    ],
    ["a listed function of another account", arn(OTHER, "partner-hook"), deployment, undefined],
    [
      "a listed function of another account, by alias and from another region",
      `${arn(OTHER, "partner-hook", "us-east-1")}:prod`,
      deployment,
      undefined,
    ],
    [
      "a listed name in a third account",
      arn("333333333333", "partner-hook"),
      deployment,
      "account 333333333333",
    ],
    [
      "an unlisted ARN when the account is unknown",
      arn(ACCOUNT, "orders"),
      { ownFunctions: [], allowedArns: [] },
      "cannot be checked",
    ],
    [
      "a listed ARN when the account is unknown",
      arn(OTHER, "partner-hook"),
      { ownFunctions: [], allowedArns: [arn(OTHER, "partner-hook")] },
      undefined,
    ],
    ["something that is no function", "not a function", deployment, "not a Lambda function"],
  ])("judges %s", (_, functionName, rules, refusal) => {
    const verdict = checkLambdaTarget(functionName, rules);
    if (refusal === undefined) {
      expect(verdict).toEqual({ allowed: true });
    } else {
      expect(verdict.allowed).toBe(false);
      expect(!verdict.allowed && verdict.reason).toContain(refusal);
    }
  });

  it("refuses an own function whatever qualifier or form names it", () => {
    const forms = (name: string, qualifier: string | undefined) => {
      const suffix = qualifier === undefined ? "" : `:${qualifier}`;
      return [
        `${name}${suffix}`,
        `${ACCOUNT}:function:${name}${suffix}`,
        `${arn(ACCOUNT, name)}${suffix}`,
      ];
    };
    fc.assert(
      fc.property(
        fc.constantFrom(ORCHESTRATOR, OPERATOR_FUNCTION),
        fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/), { nil: undefined }),
        fc.nat(2),
        (name, qualifier, form) => {
          const functionName = forms(name, qualifier)[form] as string;
          expect(checkLambdaTarget(functionName, deployment).allowed).toBe(false);
        },
      ),
    );
  });
});
