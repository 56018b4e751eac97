import Table from "cli-table3";

/** A cell as a figure gives it; null and undefined print as "–". */
type Cell = number | string | null | undefined;

const cellText = (value: Cell): string =>
  value === null || value === undefined ? "–" : String(value);

export const percent = (share: number): string => `${Math.round(share * 100)} %`;

/** An A/A band as the notes print it: `low–high`, or "–" when the twins did not both run. */
export const bandText = (band: { readonly low: number; readonly high: number } | null): string =>
  band === null ? "–" : `${band.low}–${band.high}`;

/** What a scenario comparing contenders round by round reports, as its tables read it. */
export interface ComparedResult<F, K extends string> {
  readonly subject: string;
  readonly contenders: Readonly<Record<string, { readonly pooled: F }>>;
  readonly ratios: Readonly<Record<string, Readonly<Record<K, number | null>>>>;
}

/** The rows a scenario shows: its figures per contender, then the subject's ratios to each. */
export interface ComparisonRows<F, K extends string> {
  readonly figures: readonly (readonly [string, (f: F) => Cell])[];
  readonly ratios: readonly (readonly [string, K])[];
}

/** The scenario's rows, a column per contender, for either renderer. */
export const comparisonRows = <F, K extends string>(
  result: ComparedResult<F, K>,
  spec: ComparisonRows<F, K>,
): { readonly head: readonly string[]; readonly rows: readonly (readonly string[])[] } => {
  const names = Object.keys(result.contenders);
  const rows: string[][] = spec.figures.map(([label, pick]) => [
    label,
    ...names.map((name) => {
      const figures = result.contenders[name]?.pooled;
      return figures === undefined ? "–" : cellText(pick(figures));
    }),
  ]);
  for (const [label, key] of spec.ratios) {
    rows.push([
      `${result.subject} ÷ contender, ${label} (median of rounds)`,
      ...names.map((name) =>
        name === result.subject ? "1" : cellText(result.ratios[name]?.[key]),
      ),
    ]);
  }
  return { head: ["figure", ...names], rows };
};

/** The rows as a terminal table under `title`, with the notes it is read against. */
export const comparisonTable = (
  title: string,
  table: ReturnType<typeof comparisonRows>,
  notes: readonly string[],
): string => {
  const rendered = new Table({ head: [...table.head] });
  for (const row of table.rows) rendered.push([...row]);
  return [title, rendered.toString(), ...notes].join("\n");
};

const escapeCell = (cell: string): string => cell.replaceAll("|", "\\|");

/** The rows as a Markdown table, the notes as a list under it. */
export const comparisonMarkdown = (
  table: ReturnType<typeof comparisonRows>,
  notes: readonly string[],
): string => {
  const line = (cells: readonly string[]) => `| ${cells.map(escapeCell).join(" | ")} |`;
  return [
    line(table.head),
    line(table.head.map(() => "---")),
    ...table.rows.map(line),
    "",
    ...notes.map((note) => `- ${note}`),
  ].join("\n");
};
