import * as z from "zod";
import { type BreakerSettings, BreakerSettingsSchema } from "./circuit-breaker.js";
import { TargetGroupSchema } from "./envelope.js";
import {
  groupOfMember,
  isNaturalKey,
  TARGET_KEY_FORMS,
  TargetGroupsSchema,
  targetKeyProblem,
} from "./target-groups.js";
import { groupKey, groupOfKey } from "./target-key.js";

/*
 * What each target is held to: the breaker's thresholds and two limits, as deployment defaults
 * plus overrides per target key. Resolved once at start-up; `settingsFor` is then a lookup.
 */

/** Bounds on the calls one target receives, across every instance. Unset: no bound. */
export interface TargetLimits {
  /** Calls in flight at once to the target. */
  readonly maxConcurrentCalls?: number | undefined;
  /** Calls started in one second (a whole number: the shared counter counts whole calls). */
  readonly maxCallsPerSecond?: number | undefined;
}

/** Everything one target is held to. */
interface TargetSettings extends TargetLimits {
  /** Its breaker's settings; they only matter when the breakers are on. */
  readonly breaker: BreakerSettings;
}

/**
 * The most either limit may be declared as: also the ceiling an adaptive limit grows to for a
 * target that declares none (lib/core/adaptive-limit.ts).
 */
export const MAX_TARGET_LIMIT = 10_000;

/** Overrides for one target (or for all, as defaults): breaker fields and the two limits. */
const TargetSettingsOverrideSchema = BreakerSettingsSchema.extend({
  maxConcurrentCalls: z.int().min(1).max(MAX_TARGET_LIMIT).optional(),
  maxCallsPerSecond: z.int().min(1).max(MAX_TARGET_LIMIT).optional(),
});
type TargetSettingsOverride = z.infer<typeof TargetSettingsOverrideSchema>;

/** Whether `key` is a target's own key or a group's, so that an override can ever match. */
const isTargetOrGroupKey = (key: string): boolean => {
  const group = groupOfKey(key);
  return group === undefined ? isNaturalKey(key) : TargetGroupSchema.safeParse(group).success;
};

const TargetKeySchema = z.string().superRefine((key, ctx) => {
  if (!isTargetOrGroupKey(key))
    ctx.addIssue({ code: "custom", message: targetKeyProblem(key, TARGET_KEY_FORMS) });
});

/** The deployment's per-target settings, as configuration carries them. */
export const TargetsSettingsSchema = z
  .strictObject({
    /** Applied to every target, over the breakers' own settings. */
    defaults: TargetSettingsOverrideSchema.optional(),
    /** Per target key, over `defaults`. */
    overrides: z.record(TargetKeySchema, TargetSettingsOverrideSchema).optional(),
    /** Targets that share one breaker and one set of limits, by group name (target-groups.ts). */
    groups: TargetGroupsSchema.optional(),
  })
  .superRefine(({ overrides, groups }, ctx) => {
    // An override that names an undeclared group, or a member whose events answer to its group,
    // would never apply: said at deploy time rather than found out in an outage.
    const memberGroups = groupOfMember(groups);
    for (const key of Object.keys(overrides ?? {})) {
      const group = groupOfKey(key);
      if (group !== undefined && groups?.[group] === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["overrides", key],
          message: `names group ${group}, which \`groups\` does not declare`,
        });
      } else if (group === undefined && memberGroups.has(key)) {
        const owner = memberGroups.get(key) ?? "";
        ctx.addIssue({
          code: "custom",
          path: ["overrides", key],
          message: `is a member of group ${owner}: override ${groupKey(owner)} instead`,
        });
      }
    }
  });
export type TargetsSettings = z.infer<typeof TargetsSettingsSchema>;

/** Looks up what a target is held to. */
export interface TargetSettingsResolver {
  settingsFor(key: string): TargetSettings;
  /** Whether any target has a limit: without one, limits cost nothing and need no store. */
  readonly limited: boolean;
}

const resolve = (breakerDefaults: BreakerSettings, ...layers: TargetSettingsOverride[]) => {
  const { maxConcurrentCalls, maxCallsPerSecond, ...breaker } = Object.assign(
    {},
    ...layers,
  ) as TargetSettingsOverride;
  const merged: BreakerSettings = { ...breakerDefaults, ...breaker };
  return {
    maxConcurrentCalls,
    maxCallsPerSecond,
    // A recovered target's backlog is released no faster than it may be called (issue #15,
    // Deliver 5): per instance here; the shared rate limit bounds the sum of the instances.
    breaker:
      maxCallsPerSecond === undefined
        ? merged
        : { ...merged, releasePerSecond: Math.min(merged.releasePerSecond, maxCallsPerSecond) },
  } satisfies TargetSettings;
};

/**
 * Resolves every target's settings: the breakers' settings, then `targets.defaults`, then the
 * target's own override, each field on its own. Pure; inputs are already validated.
 */
export const targetSettingsResolver = (
  breakerDefaults: BreakerSettings,
  targets: TargetsSettings | undefined,
): TargetSettingsResolver => {
  const defaults = targets?.defaults ?? {};
  const fallback = resolve(breakerDefaults, defaults);
  const overridden = new Map(
    Object.entries(targets?.overrides ?? {}).map(([key, override]) => [
      key,
      resolve(breakerDefaults, defaults, override),
    ]),
  );
  const all = [fallback, ...overridden.values()];
  return {
    settingsFor: (key) => overridden.get(key) ?? fallback,
    limited: all.some(
      (s) => s.maxConcurrentCalls !== undefined || s.maxCallsPerSecond !== undefined,
    ),
  };
};
