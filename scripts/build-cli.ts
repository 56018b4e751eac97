/**
 * Writes the `ricochet` CLI the package runs (`dist/bin/ricochet.mjs` and its chunks): an esbuild
 * bundle of bin/ricochet.ts with its own dependencies inlined.
 *
 * Why a bundle rather than tsc's output: starting the CLI from ~150 separate modules (zod alone is
 * dozens) took about twice as long as from one file, and `ricochet --help` has a 0.3 s budget.
 * Left out, and resolved from the user's project at run time: the AWS SDK (loaded only when a
 * command calls AWS) and the peer dependencies (the CDK and the emulators `ricochet dev` needs,
 * which the user may not have installed and which the dev command checks for before importing).
 *
 *   npm run build   # runs this after tsc
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { build, type Metafile } from "esbuild";
import { PROJECT_ROOT, REQUIRE_BANNER } from "../lib/infra/bundling.js";

/** Where package.json's `bin` points. */
export const CLI_BUNDLE = join("dist", "bin", "ricochet.mjs");

const manifest = JSON.parse(await readFile(join(PROJECT_ROOT, "package.json"), "utf8")) as {
  peerDependencies?: Record<string, string>;
};
const peers = Object.keys(manifest.peerDependencies ?? {});

const external = ["@aws-sdk/*", ...peers.flatMap((name) => [name, `${name}/*`])];
const result = await build({
  entryPoints: [join(PROJECT_ROOT, "bin", "ricochet.ts")],
  outdir: join(PROJECT_ROOT, "dist", "bin"),
  outExtension: { ".js": ".mjs" },
  // Each module a command imports on use becomes a chunk of its own, loaded with that import: in
  // one file, the externals it imports (the SDK, the emulators) would be imported at start-up.
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Inlined CommonJS dependencies (cli-table3) call `require` for Node built-ins.
  banner: { js: REQUIRE_BANNER },
  external,
  metafile: true,
  logLevel: "warning",
});

/**
 * The external packages the CLI imports before it runs a command: those of the entry and of every
 * chunk it imports statically. None may be the SDK or a peer, or `ricochet --help` would be slow
 * again, or fail in a project without the emulators.
 */
const importedAtStart = (outputs: Metafile["outputs"], entry: string): Set<string> => {
  const found = new Set<string>();
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const imported of outputs[path]?.imports ?? []) {
      if (imported.kind !== "import-statement") continue;
      if (imported.external) found.add(imported.path);
      else visit(imported.path);
    }
  };
  visit(entry);
  return found;
};

const entry = Object.keys(result.metafile.outputs).find((path) => path.endsWith(CLI_BUNDLE));
if (entry === undefined) throw new Error(`esbuild wrote no ${CLI_BUNDLE}`);
const lazyOnly = [...importedAtStart(result.metafile.outputs, entry)].filter(
  (name) => name.startsWith("@aws-sdk/") || peers.some((peer) => name.split("/")[0] === peer),
);
if (lazyOnly.length > 0) {
  throw new Error(`the CLI imports ${lazyOnly.join(", ")} at start-up; import them on use`);
}
process.stdout.write(`built the CLI → ${CLI_BUNDLE}\n`);
