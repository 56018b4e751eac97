import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { type LocalAwsTarget, localAwsEnv } from "../lib/adapters/aws-clients.js";
import { ENV } from "../lib/config.js";
import { esbuildOptions, PROJECT_ROOT } from "../lib/infra/bundling.js";

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
}

/*
 * The bundle is written under node_modules so that its external `@aws-sdk/*` imports resolve
 * from this project's node_modules, as they resolve from the runtime's in Lambda.
 */
const OUT_DIR = join(PROJECT_ROOT, "node_modules", ".cache", "ricochet-bench");

const IMPORT_TIMER = `
const started = performance.now();
await import(process.env.BENCH_BUNDLE);
process.stdout.write(String(performance.now() - started));
process.exit(0);
`;

const timeImport = (bundleUrl: string, env: NodeJS.ProcessEnv): Promise<number> =>
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
      const ms = Number(out);
      if (code === 0 && Number.isFinite(ms)) resolve(ms);
      else
        reject(new Error(`timing the bundle import failed (exit ${code}): ${err.slice(0, 500)}`));
    });
  });

/**
 * Bundles the orchestrator as the CDK construct does and times its cold initialisation in fresh
 * processes (spawned asynchronously: a synchronous spawn would stall in-process emulators).
 */
export const measureBundle = async (local: LocalAwsTarget, samples = 3): Promise<BundleFigures> => {
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
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    ...localAwsEnv(local),
    [ENV.TABLE_NAME]: "bench-init",
    [ENV.INGRESS_QUEUE_URL]: `${local.endpoints.sqs}/000000000000/bench-init`,
    [ENV.INTERNAL_QUEUE_URL]: `${local.endpoints.sqs}/000000000000/bench-init-internal`,
    [ENV.DEAD_LETTER_QUEUE_URL]: `${local.endpoints.sqs}/000000000000/bench-init-dlq`,
    POWERTOOLS_SERVICE_NAME: "ricochet",
    POWERTOOLS_METRICS_NAMESPACE: "Ricochet",
  };
  const url = pathToFileURL(join(PROJECT_ROOT, bundlePath)).href;
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) times.push(await timeImport(url, env));
  times.sort((a, b) => a - b);
  return { bundleBytes: output.bytes, initMs: times[Math.floor(times.length / 2)] ?? Number.NaN };
};
