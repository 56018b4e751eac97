/**
 * Parses an HTTP `Retry-After` value: either delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
 * Returns whole seconds from `nowMs` (a date in the past gives 0), or `undefined` for anything
 * unparsable, so a malformed hint is ignored rather than trusted.
 */
export const parseRetryAfter = (value: string | undefined, nowMs: number): number | undefined => {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === "") return undefined;
  if (/^\d+$/.test(trimmed)) {
    const seconds = Number(trimmed);
    return Number.isSafeInteger(seconds) ? seconds : undefined;
  }
  // Only the IMF-fixdate family is accepted; Date.parse alone accepts far too much.
  if (!/^[A-Za-z]{3},? \d{1,2}[ -][A-Za-z]{3}[ -]\d{2,4} \d{2}:\d{2}:\d{2} GMT$/.test(trimmed)) {
    return undefined;
  }
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
};
