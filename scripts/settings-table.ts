import {
  contextDefault,
  SETTING_NAMES,
  SETTINGS,
  type Setting,
  type SettingName,
  STRUCTURED_SETTINGS,
} from "../lib/contract/settings.js";

/*
 * The README's settings table, written from the settings table (lib/contract/settings.ts) by
 * `npm run docs:settings` and held to it by test/system/docs/readme-settings-table.test.ts, so
 * the documented names, defaults and units are the ones the construct and the functions use.
 */

const START = "<!-- settings-table:start (npm run docs:settings writes this table) -->";
const END = "<!-- settings-table:end -->";

const code = (text: string): string => `\`${text}\``;

/** A default as `cdk.json` spells it. */
const defaultText = (name: SettingName): string => {
  const value = contextDefault(name);
  if (Array.isArray(value)) return value.length === 0 ? "none" : code(value.join(","));
  return code(JSON.stringify(value));
};

/** The unit of the `cdk.json` value: a duration's as its key spells it. */
const unitText = (name: SettingName): string => {
  const entry: Setting<unknown> = SETTINGS[name];
  return entry.duration ?? entry.unit;
};

const variableText = (env: string | undefined, alias?: string): string => {
  if (env === undefined) return "—";
  return alias === undefined ? code(env) : `${code(env)} (formerly ${code(alias)})`;
};

const propText = (name: string, alias?: string): string =>
  alias === undefined ? code(name) : `${code(name)} (formerly ${code(alias)})`;

const scalarRow = (name: SettingName): string => {
  const entry: Setting<unknown> = SETTINGS[name];
  const alias = entry.deprecatedAlias;
  return [
    propText(name, alias?.prop),
    code(entry.contextKey),
    variableText(entry.env, alias?.env),
    defaultText(name),
    unitText(name),
    entry.doc,
  ].join(" | ");
};

const structuredRows = (): string[] =>
  Object.entries(STRUCTURED_SETTINGS).map(([name, entry]) =>
    [code(name), code(entry.contextKey), code(entry.env), "see meaning", "object", entry.doc].join(
      " | ",
    ),
  );

/** The table, one row per setting, scalar ones first in the settings table's order. */
const settingsTable = (): string =>
  [
    "| prop | `cdk.json` key | variable | default | unit | meaning |",
    "| --- | --- | --- | --- | --- | --- |",
    ...[...SETTING_NAMES.map(scalarRow), ...structuredRows()].map((row) => `| ${row} |`),
  ].join("\n");

/**
 * The README with its settings table rewritten between the markers.
 * @throws Error when the README has lost a marker (the table would have nowhere to go).
 */
export const readmeWithSettingsTable = (readme: string): string => {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) {
    throw new Error(`README.md lacks the settings table's markers: ${START} … ${END}`);
  }
  return `${readme.slice(0, start + START.length)}\n${settingsTable()}\n${readme.slice(end)}`;
};
