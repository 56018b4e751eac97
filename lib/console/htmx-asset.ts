import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/**
 * htmx's minified script, read from the installed `htmx.org` package (a dependency, so it sits
 * beside Ricochet in the user's node_modules too): resolved from this module, which works from
 * lib/console in this repository and from the CLI bundle's chunk under dist/bin in the package.
 */
export const readHtmx = (): string =>
  readFileSync(createRequire(import.meta.url).resolve("htmx.org/dist/htmx.min.js"), "utf8");
