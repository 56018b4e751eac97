import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import ts from "typescript";

/*
 * The layers of lib/ and which may import which. A file's layer is the longest layer folder its
 * path starts with (`app/operator` before `app`); the files directly in lib/ are the package's
 * entry points. Each layer lists the layers it may import (itself included): the arrows only
 * point down, from the outside in.
 */

/**
 * lib/app holds two programs: the orchestrator (one message's attempt) and the operator function
 * (redrive, cancel, replay, the dead-letter scan). Neither imports the other; what both use sits
 * in lib/app itself, which imports neither.
 */
const APP = ["app", "app/orchestrator", "app/operator"] as const;

export const LAYER_IMPORTS = {
  contract: ["contract"],
  core: ["contract", "core"],
  app: ["contract", "core", "app"],
  "app/orchestrator": ["contract", "core", "app", "app/orchestrator"],
  "app/operator": ["contract", "core", "app", "app/operator"],
  adapters: ["contract", "core", ...APP, "adapters"],
  runtime: ["contract", "core", ...APP, "adapters", "runtime"],
  client: ["contract", "core", ...APP, "adapters", "client"],
  entry: ["contract", "core", ...APP, "adapters", "runtime", "client", "entry"],
  infra: ["contract", "core", "infra"],
  local: ["contract", "core", ...APP, "adapters", "runtime", "client", "infra", "local"],
  console: ["contract", "core", ...APP, "adapters", "runtime", "client", "console"],
  cli: [
    "contract",
    "core",
    ...APP,
    "adapters",
    "runtime",
    "client",
    "infra",
    "local",
    "console",
    "cli",
  ],
} as const satisfies Record<string, readonly string[]>;

type Layer = keyof typeof LAYER_IMPORTS;

/** Packages the pure layers may not import: they talk to AWS, so they belong in adapters. */
const AWS_PACKAGE = /^(@aws-sdk\/|@smithy\/|aws-cdk-lib|constructs|@aws-lambda-powertools\/)/;
const PURE_LAYERS: ReadonlySet<Layer> = new Set<Layer>(["contract", "core", ...APP]);

/** Layers whose folder holds more than one segment first, so the longest folder wins. */
const LAYER_FOLDERS = (Object.keys(LAYER_IMPORTS) as Layer[])
  .filter((layer) => layer !== "entry")
  .sort((a, b) => b.split("/").length - a.split("/").length);

const layerOf = (libPath: string): Layer | undefined => {
  if (!libPath.includes("/")) return "entry";
  return LAYER_FOLDERS.find((layer) => libPath.startsWith(`${layer}/`));
};

/** One import found in lib/: the importing file and what it names, both relative to lib/. */
export interface ImportArrow {
  readonly from: string;
  /** A path relative to lib/ for a local module, else the package specifier. */
  readonly to: string;
  readonly local: boolean;
}

/** Every arrow that breaks the layer rules, as a readable line; empty when the tree is sound. */
export const layerViolations = (arrows: readonly ImportArrow[]): string[] => {
  const problems: string[] = [];
  for (const arrow of arrows) {
    const fromLayer = layerOf(arrow.from);
    if (fromLayer === undefined) {
      problems.push(`${arrow.from}: not in a known layer folder (${Object.keys(LAYER_IMPORTS)})`);
      continue;
    }
    if (!arrow.local) {
      if (PURE_LAYERS.has(fromLayer) && AWS_PACKAGE.test(arrow.to)) {
        problems.push(`${arrow.from} → ${arrow.to}: ${fromLayer} may not import AWS packages`);
      }
      continue;
    }
    if (arrow.to.startsWith("../")) {
      problems.push(`${arrow.from} → ${arrow.to}: lib/ may not import from outside lib/`);
      continue;
    }
    const toLayer = layerOf(arrow.to);
    const allowed: readonly string[] = LAYER_IMPORTS[fromLayer];
    if (toLayer === undefined || !allowed.includes(toLayer)) {
      problems.push(`${arrow.from} → ${arrow.to}: ${fromLayer} may not import ${toLayer ?? "it"}`);
    }
  }
  return problems;
};

/** Every `.ts` file under `dir`, recursively. */
export const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });

/** Reads every import (static, re-export and dynamic) of every module under `libDir`. */
export const importArrowsOf = (libDir: string): ImportArrow[] =>
  sourceFiles(libDir).flatMap((file) => {
    const from = relative(libDir, file).split(sep).join("/");
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    return importedFiles.map(({ fileName }) => {
      if (!fileName.startsWith(".")) return { from, to: fileName, local: false };
      const target = normalize(join(dirname(file), fileName.replace(/\.js$/, ".ts")));
      return { from, to: relative(libDir, target).split(sep).join("/"), local: true };
    });
  });
