import * as z from "zod";
import { type Target, TargetGroupSchema } from "./envelope.js";
import { groupKey, naturalSpellingOf, naturalTargetKey } from "./target-key.js";

/*
 * Groups of targets that share one breaker and one set of limits are declared by the operator,
 * not chosen by the producer. A producer's `target.group` crosses the trust boundary: honoured
 * as it stood, one producer could open another tenant's breaker (its failures counted against
 * the other's group), slip past a partner's concurrency or rate limit (a fresh group per event
 * is a fresh, unlimited key), or make the targets table grow without bound. So a declared
 * group's members join it whatever the envelope says, and an envelope's group is honoured only
 * where it names the group its target is declared in.
 */

/** Declared groups: each group name with the target keys (`http:…`, `lambda:…`) it holds. */
export type TargetGroups = Readonly<Record<string, readonly string[]>>;

/** The most groups, and members per group, a deployment declares (they travel in one env var). */
const MAX_TARGET_GROUPS = 200;
const MAX_GROUP_MEMBERS = 500;

const NATURAL_KEY_FORMS =
  "lambda:<function name or unqualified ARN>, or http:<scheme>://<canonical host>:<port> (the port always written)";

/** Whether `key` is written exactly as {@link naturalTargetKey} writes some target's key. */
export const isNaturalKey = (key: string): boolean => naturalSpellingOf(key) === key;

/**
 * Why `key` cannot be a target's key, naming the accepted `forms`, and the spelling to write
 * instead when it names a target in another spelling (`localhost`, a trailing dot, no port).
 */
export const targetKeyProblem = (key: string, forms: string): string => {
  const natural = naturalSpellingOf(key);
  const instead = natural === undefined ? "" : `; this target's key is ${natural}`;
  return `must be a target key as \`ricochet\` shows it: ${forms}${instead}`;
};

/** A member: a target key as {@link naturalTargetKey} writes it, never itself a group. */
const MemberKeySchema = z.string().superRefine((key, ctx) => {
  if (!isNaturalKey(key))
    ctx.addIssue({ code: "custom", message: targetKeyProblem(key, NATURAL_KEY_FORMS) });
});

/** The target keys' forms, group keys included, as a problem names them. */
export const TARGET_KEY_FORMS = `group:<declared group>, ${NATURAL_KEY_FORMS}`;

/** The declared groups as configuration carries them; a target belongs to at most one. */
export const TargetGroupsSchema = z
  .record(TargetGroupSchema, z.array(MemberKeySchema).min(1).max(MAX_GROUP_MEMBERS).readonly())
  .refine((groups) => Object.keys(groups).length <= MAX_TARGET_GROUPS, {
    message: `must declare at most ${MAX_TARGET_GROUPS} groups`,
  })
  .superRefine((groups, ctx) => {
    const seen = new Map<string, string>();
    for (const [group, members] of Object.entries(groups)) {
      for (const member of members) {
        const first = seen.get(member);
        if (first !== undefined && first !== group) {
          ctx.addIssue({
            code: "custom",
            path: [group],
            message: `${member} is already a member of group ${first}: a target belongs to one group`,
          });
        }
        seen.set(member, group);
      }
    }
  });

/** Which breaker and limits an event's target answers to, and what became of its `group`. */
export interface TargetKeyResolution {
  /** The key its breaker, limits and metrics are kept under. */
  readonly key: string;
  /** The declared group it belongs to, if any (kept on the record). */
  readonly group?: string | undefined;
  /** The envelope's `group` when it was not honoured: it is not the target's declared group. */
  readonly ignoredGroup?: string | undefined;
}

/** Resolves an event's target to its key under the declared groups. */
export type TargetKeying = (target: Target) => TargetKeyResolution;

/** Each member's group, by the member's own key (a later declaration wins; validation refuses two). */
export const groupOfMember = (groups: TargetGroups | undefined): ReadonlyMap<string, string> =>
  new Map(
    Object.entries(groups ?? {}).flatMap(([group, members]) =>
      members.map((member): [string, string] => [member, group]),
    ),
  );

/** Builds the lookup once, at start-up; inputs are already validated. */
export const targetKeying = (groups: TargetGroups | undefined): TargetKeying => {
  const groupOf = groupOfMember(groups);
  return (target) => {
    const natural = naturalTargetKey(target);
    const group = groupOf.get(natural);
    const ignoredGroup =
      target.group !== undefined && target.group !== group ? target.group : undefined;
    return {
      key: group === undefined ? natural : groupKey(group),
      ...(group === undefined ? {} : { group }),
      ...(ignoredGroup === undefined ? {} : { ignoredGroup }),
    };
  };
};
