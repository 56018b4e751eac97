import * as z from "zod";
import { SETTING_NAMES, SETTINGS, type SettingName } from "../contract/settings.js";
import { DEFAULT_STACK_NAME } from "../contract/stack-outputs.js";
import { ConfigurationError, formatProblems } from "../core/errors.js";
import { withNearestNames } from "../core/nearest-name.js";
import { PolicyFieldsSchema } from "../core/policy.js";
import { toProblems } from "../core/zod-problems.js";
import { propFromContext, type RetryOrchestratorProps } from "./retry-orchestrator-props.js";

/** The CDK context key (in `cdk.json` or `-c ricochet=...`) holding the deployment's settings. */
export const CONTEXT_KEY = "ricochet";

/** The `cdk.json` shape of a scalar setting: JSON has numbers, booleans, strings and lists. */
const contextShape = (name: SettingName): z.ZodType => {
  const { unit } = SETTINGS[name];
  if (unit === "switch") return z.boolean();
  if (unit === "list") return z.array(z.string());
  if (unit === "text") return z.string();
  return z.number();
};

/** Each scalar setting's `cdk.json` key, with its former name where it has one. */
const settingKeys = (): Record<string, z.ZodType> =>
  Object.fromEntries(
    SETTING_NAMES.flatMap((name) => {
      const { contextKey, deprecatedAlias } = SETTINGS[name];
      const shape = contextShape(name).optional();
      const alias = deprecatedAlias === undefined ? [] : [[deprecatedAlias.prop, shape] as const];
      return [[contextKey, shape] as const, ...alias];
    }),
  );

/*
 * Context is JSON, so durations are given in seconds or days (the settings table says which).
 * Only shapes are checked here; the construct checks values and their conflicts, and reports
 * them all at once.
 */
const ContextSchema = z.strictObject({
  stackName: z.string().min(1).default(DEFAULT_STACK_NAME),
  defaultPolicy: PolicyFieldsSchema.optional(),
  policyLimits: z
    .strictObject({
      maxAttempts: z.number().optional(),
      minBaseDelaySeconds: z.number().optional(),
    })
    .optional(),
  ...settingKeys(),
  /** `true`, `false`, or overrides of the breakers' defaults (checked by the construct). */
  circuitBreaker: z.union([z.boolean(), z.record(z.string(), z.number())]).optional(),
  /** `{ defaults?, overrides?: { <target key>: … } }` of numbers (checked by the construct). */
  targets: z
    .strictObject({
      defaults: z.record(z.string(), z.number()).optional(),
      overrides: z.record(z.string(), z.record(z.string(), z.number())).optional(),
    })
    .optional(),
});

/** The scalar settings' props from the context, each under its prop name (and a former name). */
const settingPropsOf = (context: Readonly<Record<string, unknown>>): RetryOrchestratorProps =>
  Object.fromEntries(
    SETTING_NAMES.flatMap((name) => {
      const { contextKey, deprecatedAlias } = SETTINGS[name];
      const alias = deprecatedAlias?.prop;
      const own = [[name, propFromContext(name, context[contextKey])] as const];
      return alias === undefined ? own : [...own, [alias, context[alias]] as const];
    }),
  );

/** What the app builds from its context. */
export interface RicochetAppSettings {
  readonly stackName: string;
  readonly orchestrator: RetryOrchestratorProps;
}

/*
 * `cdk.json` gives the context as an object, but `cdk deploy -c 'ricochet={...}'` hands the app a
 * string: the CDK CLI does not parse command-line context values.
 */
const contextObject = (context: unknown): unknown => {
  if (typeof context !== "string") return context ?? {};
  try {
    return JSON.parse(context);
  } catch {
    throw new ConfigurationError(`the "${CONTEXT_KEY}" context given as a string is not JSON`);
  }
};

/**
 * Reads the app's settings from the `ricochet` context value (absent means all defaults), an
 * object from `cdk.json` or a JSON string from `-c ricochet=...`.
 * @throws ConfigurationError naming every malformed field.
 */
export const readAppSettings = (context: unknown): RicochetAppSettings => {
  const parsed = ContextSchema.safeParse(contextObject(context));
  if (!parsed.success) {
    const problems = withNearestNames(toProblems(parsed.error), Object.keys(ContextSchema.shape));
    throw new ConfigurationError(`invalid "${CONTEXT_KEY}" context: ${formatProblems(problems)}`);
  }
  const { stackName, defaultPolicy, policyLimits, circuitBreaker, targets, ...rest } = parsed.data;
  return {
    stackName,
    orchestrator: {
      defaultPolicy,
      policyLimits,
      ...settingPropsOf(rest),
      circuitBreaker,
      targets,
    },
  };
};
