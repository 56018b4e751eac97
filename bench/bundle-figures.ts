import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { type LocalAwsTarget, localAwsEnv } from "../lib/adapters/aws-clients.js";
import type { TracingMode } from "../lib/contract/defaults.js";
import { ENV } from "../lib/contract/environment.js";
import { esbuildOptions, PROJECT_ROOT } from "../lib/infra/bundling.js";
import { median } from "./support/round-statistics.js";

/** The orchestrator bundle's size and how long it takes to initialise. */
export interface BundleFigures {
  /** Bytes of functions/orchestrator.ts bundled with the construct's esbuild options (no map). */
  readonly bundleBytes: number;
  /**
   * Median over `samples` fresh `node` processes of the time to `import()` the bundle: reading
   * and evaluating it, loading the external AWS SDK from node_modules, reading the configuration
   * and building the clients and the orchestrator. Node's own start-up is excluded, and so is
   * Lambda's (sandbox, runtime bootstrap); no AWS call is made at import.
   */
  readonly initMs: number;
  /**
   * Median over the same processes of the first invocation with an empty batch, right after the
   * import: what the function defers to its first batch (loading the SDK, building the clients
   * and the orchestrator), without any AWS call. `initMs + firstBatchMs` is the cold start's
   * module work, wherever the function puts it.
   */
  readonly firstBatchMs: number;
}

/*
 * The bundle is written inside the project so that its external `@aws-sdk/*` imports resolve
 * from this project's node_modules, as they resolve from the runtime's in Lambda. Not inside
 * node_modules itself: git worktrees may share one install, and two benches would overwrite
 * each other's bundle there. `.ricochet/` is git-ignored scratch space.
 */
const OUT_DIR = join(PROJECT_ROOT, ".ricochet", "bench");

const IMPORT_TIMER = `
const started = performance.now();
const { handler } = await import(process.env.BENCH_BUNDLE);
const imported = performance.now();
await handler({ Records: [] }, { getRemainingTimeInMillis: () => 60000 });
const batched = performance.now();
process.stdout.write(JSON.stringify({ initMs: imported - started, firstBatchMs: batched - imported }));
process.exit(0);
`;

type ColdStartSample = Pick<BundleFigures, "initMs" | "firstBatchMs">;

const isSample = (value: unknown): value is ColdStartSample =>
  typeof value === "object" &&
  value !== null &&
  "initMs" in value &&
  "firstBatchMs" in value &&
  Number.isFinite(value.initMs) &&
  Number.isFinite(value.firstBatchMs);

const timeImport = (bundleUrl: string, env: NodeJS.ProcessEnv): Promise<ColdStartSample> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", IMPORT_TIMER], {
      env: { ...env, BENCH_BUNDLE: bundleUrl },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      let sample: unknown;
      try {
        sample = JSON.parse(out);
      } catch {
        sample = undefined;
      }
      if (code === 0 && isSample(sample)) resolve(sample);
      else
        reject(new Error(`timing the bundle import failed (exit ${code}): ${err.slice(0, 500)}`));
    });
  });

/** The orchestrator, bundled as the CDK construct bundles it: its URL and size. */
const buildBundle = async (): Promise<{ readonly url: string; readonly bytes: number }> => {
  await mkdir(OUT_DIR, { recursive: true });
  const result = await build({
    ...esbuildOptions("orchestrator"),
    outdir: OUT_DIR,
    outExtension: { ".js": ".mjs" },
    absWorkingDir: PROJECT_ROOT,
    write: true,
    metafile: true,
  });
  const outputs = Object.entries(result.metafile.outputs).filter(([path]) => path.endsWith(".mjs"));
  const [bundlePath, output] = outputs[0] ?? [];
  if (bundlePath === undefined || output === undefined) throw new Error("esbuild wrote no bundle");
  return { url: pathToFileURL(join(PROJECT_ROOT, bundlePath)).href, bytes: output.bytes };
};

/** The function's environment, with tracing as `tracing` says. */
const functionEnv = (local: LocalAwsTarget, tracing: TracingMode): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  ...localAwsEnv(local),
  [ENV.TABLE_NAME]: "bench-init",
  [ENV.INGRESS_QUEUE_URL]: `${local.endpoints.sqs}/000000000000/bench-init`,
  [ENV.INTERNAL_QUEUE_URL]: `${local.endpoints.sqs}/000000000000/bench-init-internal`,
  [ENV.DEAD_LETTER_QUEUE_URL]: `${local.endpoints.sqs}/000000000000/bench-init-dlq`,
  [ENV.TRACING]: tracing,
  POWERTOOLS_SERVICE_NAME: "ricochet",
  POWERTOOLS_METRICS_NAMESPACE: "Ricochet",
});

const medianOf = (bytes: number, timings: readonly ColdStartSample[]): BundleFigures => ({
  bundleBytes: bytes,
  initMs: median(timings.map((t) => t.initMs)),
  firstBatchMs: median(timings.map((t) => t.firstBatchMs)),
});

/**
 * Bundles the orchestrator as the CDK construct does and times its cold initialisation in fresh
 * processes (spawned asynchronously: a synchronous spawn would stall in-process emulators).
 */
export const measureBundle = async (local: LocalAwsTarget, samples = 3): Promise<BundleFigures> => {
  const bundle = await buildBundle();
  const env = functionEnv(local, "off");
  const timings: ColdStartSample[] = [];
  for (let i = 0; i < samples; i += 1) timings.push(await timeImport(bundle.url, env));
  return medianOf(bundle.bytes, timings);
};

/**
 * The cold start with tracing off and on, from one bundle, the samples alternated so that the
 * machine's drift falls on both alike. On, the OpenTelemetry SDK is loaded at init; its exporter
 * is never called, as an empty batch makes no span.
 */
export const measureTracingColdStart = async (
  local: LocalAwsTarget,
  samples = 3,
): Promise<{ readonly off: BundleFigures; readonly on: BundleFigures }> => {
  const bundle = await buildBundle();
  const off: ColdStartSample[] = [];
  const on: ColdStartSample[] = [];
  for (let i = 0; i < samples; i += 1) {
    off.push(await timeImport(bundle.url, functionEnv(local, "off")));
    on.push(await timeImport(bundle.url, functionEnv(local, "on")));
  }
  return { off: medianOf(bundle.bytes, off), on: medianOf(bundle.bytes, on) };
};
