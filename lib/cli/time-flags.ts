import { InvalidArgumentError } from "commander";

const DURATION = /^(\d+)(s|m|h|d)$/;
const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** Commander parser for a duration such as `90s`, `15m`, `1h`, `2d`; returns seconds. */
export const parseDuration = (value: string): number => {
  const match = DURATION.exec(value.trim());
  if (match === null) {
    throw new InvalidArgumentError("must be a duration such as 90s, 15m, 1h or 2d.");
  }
  return Number(match[1]) * (UNIT_SECONDS[match[2] as string] as number);
};

/** Commander parser for an ISO 8601 date-time with a zone; returns it normalised to UTC. */
export const parseIsoInstant = (value: string): string => {
  const ms = Date.parse(value);
  if (!/[zZ]|[+-]\d\d:?\d\d$/.test(value.trim()) || Number.isNaN(ms)) {
    throw new InvalidArgumentError(
      "must be an ISO 8601 date-time with a zone (2025-01-31T12:00:00Z).",
    );
  }
  return new Date(ms).toISOString();
};

/**
 * Commander parser for an instant: an ISO 8601 date-time with a zone, or a duration meaning
 * "that long ago" (`2h`). Returns the ISO string, so requests carry absolute times only.
 */
export const parseInstant =
  (now: () => number = Date.now) =>
  (value: string): string => {
    if (DURATION.test(value.trim()))
      return new Date(now() - parseDuration(value) * 1000).toISOString();
    try {
      return parseIsoInstant(value);
    } catch {
      throw new InvalidArgumentError(
        "must be an ISO 8601 date-time with a zone (2025-01-31T12:00:00Z) or a duration ago (2h).",
      );
    }
  };
