import { LimitChange } from "../core/adaptive-limit.js";
import type { LearnedLimitEntry } from "../core/learned-limits.js";
import type { RefusalTracks } from "../core/refusal-noise.js";

/*
 * How a target's item holds the instances' learned limits: one top-level attribute per instance,
 * `learned#<instance id>`, holding a map. Not one map attribute keyed by instance: `SET #m.#id`
 * fails on an item without the map, and creating the map first would cost a second, conditional
 * write. Each instance's write then touches only its own attribute, so two never race.
 */

/** The prefix of an instance's attribute; no other attribute of the item starts with it. */
const LEARNED_ATTRIBUTE_PREFIX = "learned#";

/** The attribute `instanceId`'s entry lives in. */
export const learnedAttributeOf = (instanceId: string): string =>
  `${LEARNED_ATTRIBUTE_PREFIX}${instanceId}`;

const REASONS: ReadonlySet<string> = new Set(Object.values(LimitChange));

const isLimitChange = (value: unknown): value is LimitChange =>
  typeof value === "string" && REASONS.has(value);

/**
 * An entry's refusal counts as the item holds them: a list of four numbers, to 0.1, under a short
 * name. Every breaker write pays for the item's size, and 32 entries of named counts would add a
 * write unit to each.
 */
const REFUSALS_ATTRIBUTE = "rt";

const tenths = (value: number): number => Math.round(value * 10) / 10;

const refusalsValueOf = (tracks: RefusalTracks): number[] =>
  [tracks.lockoutCalls, tracks.lockoutRefused, tracks.afterCalls, tracks.afterRefused].map(tenths);

/** Counts read back; undefined unless four finite counts, none negative, none above its calls. */
const refusalsOf = (value: unknown): RefusalTracks | undefined => {
  if (!Array.isArray(value) || value.length !== 4) return undefined;
  if (!value.every((n) => typeof n === "number" && Number.isFinite(n) && n >= 0)) return undefined;
  const [lockoutCalls, lockoutRefused, afterCalls, afterRefused] = value as number[];
  if (lockoutCalls === undefined || lockoutRefused === undefined) return undefined;
  if (afterCalls === undefined || afterRefused === undefined) return undefined;
  if (lockoutRefused > lockoutCalls || afterRefused > afterCalls) return undefined;
  return { lockoutCalls, lockoutRefused, afterCalls, afterRefused };
};

/** The map an entry is written as (its instance is the attribute's name). */
export const learnedValueOf = (entry: LearnedLimitEntry): Record<string, unknown> => {
  const { instanceId: _instanceId, refusals, ...value } = entry;
  return refusals === undefined
    ? value
    : { ...value, [REFUSALS_ATTRIBUTE]: refusalsValueOf(refusals) };
};

/** One attribute's entry; undefined when it is not one this code wrote (never trusted blindly). */
const entryOf = (instanceId: string, value: unknown): LearnedLimitEntry | undefined => {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const numbers = [
    v.callsPerSecond,
    v.ceilingPerSecond,
    v.maxConcurrentCalls,
    v.changedAtMs,
    v.writtenAtMs,
  ];
  if (!numbers.every((n) => typeof n === "number" && Number.isFinite(n))) return undefined;
  if (!isLimitChange(v.reason)) return undefined;
  // Counts that do not parse are dropped, not the entry: its rate still counts in the share.
  const refusals = refusalsOf(v[REFUSALS_ATTRIBUTE]);
  return {
    instanceId,
    callsPerSecond: v.callsPerSecond as number,
    ceilingPerSecond: v.ceilingPerSecond as number,
    maxConcurrentCalls: v.maxConcurrentCalls as number,
    reason: v.reason,
    changedAtMs: v.changedAtMs as number,
    writtenAtMs: v.writtenAtMs as number,
    ...(refusals === undefined ? {} : { refusals }),
  };
};

/** Every instance's entry the item holds, stale ones included. */
export const learnedEntriesOf = (item: Record<string, unknown> | undefined): LearnedLimitEntry[] =>
  Object.entries(item ?? {}).flatMap(([name, value]) => {
    if (!name.startsWith(LEARNED_ATTRIBUTE_PREFIX)) return [];
    const entry = entryOf(name.slice(LEARNED_ATTRIBUTE_PREFIX.length), value);
    return entry === undefined ? [] : [entry];
  });
