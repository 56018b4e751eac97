import { readFileSync, writeFileSync } from "node:fs";
import { readmeWithSettingsTable } from "./settings-table.js";

// `npm run docs:settings`: rewrites README.md's settings table from lib/contract/settings.ts.
writeFileSync("README.md", readmeWithSettingsTable(readFileSync("README.md", "utf8")));
