/**
 * A count and its noun as a sentence says it: `1 copy`, `2 copies`, `0 events`. Every count an
 * operator reads goes through here, so no message says "copie(s)".
 * @param plural the plural when it is not the singular plus "s".
 */
export const countOf = (count: number, singular: string, plural = `${singular}s`): string =>
  `${count} ${count === 1 ? singular : plural}`;
