/*
 * Which Lambda functions an event may invoke. Producers choose the function, so without a check
 * an event could target Ricochet's own orchestrator (each delivery a new batch: a loop bounded
 * only by IAM) or its operator function, or reach into another account. IAM (`lambdaTargets`) is
 * the outer fence; this check refuses the loop and the foreign account before any call, with a
 * reason the record keeps, whatever the role happens to allow.
 *
 * Lambda takes a function as a bare name, `name:qualifier`, a partial ARN
 * (`123456789012:function:name[:qualifier]`) or a full ARN. Functions are compared by name and
 * account only: a qualifier (alias, version) names the same function, and a same-named function
 * in another region of the account is refused along with the real one rather than risk a loop.
 */

/** A function reference taken apart. `account` is absent for a bare name (the caller's account). */
export interface LambdaFunctionRef {
  readonly name: string;
  readonly account?: string | undefined;
  readonly qualifier?: string | undefined;
}

const NAME = "[A-Za-z0-9_-]{1,64}";
const QUALIFIER = "(?::(\\$LATEST|[A-Za-z0-9_-]{1,128}))?";
const FULL_ARN = new RegExp(
  `^arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:(\\d{12}):function:(${NAME})${QUALIFIER}$`,
);
const PARTIAL_ARN = new RegExp(`^(\\d{12}):function:(${NAME})${QUALIFIER}$`);
const BARE = new RegExp(`^(${NAME})${QUALIFIER}$`);

/** Reads any of Lambda's four ways to name a function; `undefined` when it is none of them. */
export const parseLambdaFunction = (text: string): LambdaFunctionRef | undefined => {
  const arn = FULL_ARN.exec(text) ?? PARTIAL_ARN.exec(text);
  if (arn !== null) return { account: arn[1], name: arn[2] as string, qualifier: arn[3] };
  const bare = BARE.exec(text);
  if (bare !== null) return { name: bare[1] as string, qualifier: bare[2] };
  return undefined;
};

/** What the deployment knows about itself, to judge a Lambda target by. */
export interface LambdaTargetRules {
  /** Names (or ARNs) of Ricochet's own functions in this deployment: never a target. */
  readonly ownFunctions: readonly string[];
  /**
   * The deployment's account. Unknown (a process run outside the construct), no target naming an
   * account can be shown to be local, so only listed ARNs are accepted: fail closed.
   */
  readonly accountId?: string | undefined;
  /** Function ARNs events may invoke although they are in another account (`lambdaTargets`). */
  readonly allowedArns: readonly string[];
}

/** The decision on one target. */
export type LambdaTargetVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: string };

const ALLOWED: LambdaTargetVerdict = { allowed: true };

/**
 * Lambda function names are matched case-insensitively when refusing Ricochet's own functions:
 * a wrongly refused target is a clear error, a wrongly accepted one a loop.
 */
const sameOwnName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/**
 * Judges the `functionName` of a Lambda target: refused if it names one of Ricochet's own
 * functions, or a function in another account that the deployment does not list; else allowed.
 * The account of a bare name is the deployment's own (Lambda resolves it in the caller's account).
 */
export const checkLambdaTarget = (
  functionName: string,
  rules: LambdaTargetRules,
): LambdaTargetVerdict => {
  const target = parseLambdaFunction(functionName);
  if (target === undefined) {
    return { allowed: false, reason: "not a Lambda function name, alias or ARN" };
  }
  const targetAccount = target.account ?? rules.accountId;
  for (const own of rules.ownFunctions) {
    const ref = parseLambdaFunction(own);
    if (ref === undefined || !sameOwnName(ref.name, target.name)) continue;
    const ownAccount = ref.account ?? rules.accountId;
    // An unknown account on either side cannot rule the match out.
    if (targetAccount === undefined || ownAccount === undefined || targetAccount === ownAccount) {
      return {
        allowed: false,
        reason: `it is Ricochet's own function ${ref.name}; an event invoking it would loop`,
      };
    }
  }
  if (target.account === undefined || target.account === rules.accountId) return ALLOWED;
  const listed = rules.allowedArns.some((arn) => {
    const ref = parseLambdaFunction(arn);
    return ref !== undefined && ref.account === target.account && ref.name === target.name;
  });
  if (listed) return ALLOWED;
  return {
    allowed: false,
    reason:
      rules.accountId === undefined
        ? `account ${target.account} cannot be checked against the deployment's (unknown); list the function's ARN in lambdaTargets to permit it`
        : `account ${target.account} is not the deployment's (${rules.accountId}); list the function's ARN in lambdaTargets to permit it`,
  };
};

/** How long a synchronous invocation may take before the attempt counts as timed out. */
export const DEFAULT_LAMBDA_TIMEOUT_MS = 60_000;
