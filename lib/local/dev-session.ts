import { type AwsClients, createAwsClients, localAwsEnv } from "../adapters/aws-clients.js";
import type { Orchestrator } from "../app/orchestrator/orchestrator.js";
import { TRACING_MODES } from "../contract/defaults.js";
import { ENV } from "../contract/environment.js";
import { LOCAL_CREDENTIALS } from "../contract/local-identity.js";
import { CountingMetrics, type Log } from "../core/observability.js";
import type { PolicyOverride } from "../core/policy.js";
import type { RandomSource } from "../core/random.js";
import { loadConfig, parseList, type RicochetConfig } from "../runtime/config.js";
import {
  createOrchestratorRuntime,
  createPorts,
  type RicochetPorts,
} from "../runtime/create-ports.js";
import { createSqsBatchHandler } from "../runtime/sqs-batch-handler.js";
import { loadTracer } from "../runtime/tracing.js";
import type { DevProgress, DevStep } from "./dev-progress.js";
import { type DevSettings, devSettingsFromTemplate } from "./dev-settings-from-template.js";
import { type SqsBatchHandler, startEventSourcePoller } from "./event-source-poller.js";
import { type ProvisionedResources, provisionFromTemplate } from "./provision-from-template.js";
import {
  configuredEndpoints,
  EMULATOR_NAME,
  LOCAL_SERVICES,
  type LocalAws,
  SERVICE_NAME,
  startLocalAws,
} from "./start-local-aws.js";
import { synthesizeTemplate } from "./synthesize-template.js";

export interface DevSessionOptions {
  /** Merged over the template's default policy (the demo's seconds-scale policy). */
  readonly policyOverride?: PolicyOverride | undefined;
  /**
   * Added to the template's allowed target hosts, never replacing them: the demo receiver's
   * 127.0.0.1, `--allow-host`, `RICOCHET_ALLOWED_TARGET_HOSTS` (see `dev-host-allowances.ts`).
   */
  readonly extraAllowedHosts?: readonly string[] | undefined;
  /**
   * The breakers' setting over the template's, spelled as `RICOCHET_CIRCUIT_BREAKER` is
   * (`--circuit-breaker`, see `dev-breaker-setting.ts`); absent: the template's stands.
   */
  readonly circuitBreaker?: string | undefined;
  /** Jitter draws; seeded in scripted runs. */
  readonly random?: RandomSource | undefined;
  readonly log: Log;
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** Told each start-up step as it happens, for `npm start`'s progress lines. */
  readonly progress?: DevProgress | undefined;
}

/** Ricochet running on this machine: emulators, resources, the orchestrator and its poller. */
export interface DevSession {
  readonly local: LocalAws;
  readonly clients: AwsClients;
  readonly resources: ProvisionedResources;
  readonly settings: DevSettings;
  /** The environment the orchestrator was configured from, after local overrides. */
  readonly orchestratorEnv: Readonly<Record<string, string>>;
  readonly config: RicochetConfig;
  readonly ports: RicochetPorts;
  readonly orchestrator: Orchestrator;
  readonly metrics: CountingMetrics;
  /** What a producer or the `ricochet` CLI in another shell must export to reach this session. */
  readonly producerEnv: Readonly<Record<string, string>>;
  /** Stops the poller, then the emulators, and waits until every process has exited. */
  stop(): Promise<void>;
}

/**
 * The template's environment with the local overrides applied: policy merged, hosts added, the
 * breakers' setting replaced.
 */
export const applyLocalOverrides = (
  env: Readonly<Record<string, string>>,
  options: Pick<DevSessionOptions, "policyOverride" | "extraAllowedHosts" | "circuitBreaker">,
): Record<string, string> => {
  const result = { ...env };
  if (options.circuitBreaker !== undefined) result[ENV.CIRCUIT_BREAKER] = options.circuitBreaker;
  if (options.policyOverride !== undefined) {
    const deployed = result[ENV.DEFAULT_POLICY]?.trim()
      ? JSON.parse(result[ENV.DEFAULT_POLICY] ?? "{}")
      : {};
    result[ENV.DEFAULT_POLICY] = JSON.stringify({ ...deployed, ...options.policyOverride });
  }
  const extra = options.extraAllowedHosts ?? [];
  if (extra.length > 0) {
    const hosts = parseList(result[ENV.ALLOWED_TARGET_HOSTS]);
    result[ENV.ALLOWED_TARGET_HOSTS] = [...new Set([...hosts, ...extra])].join(",");
  }
  return result;
};

/** The first step: which emulators this start runs, and which services it finds configured. */
const startingStep = (env: NodeJS.ProcessEnv): DevStep => {
  const configured = configuredEndpoints(env);
  const services = LOCAL_SERVICES.filter((service) => configured[service] === undefined);
  return {
    kind: "starting",
    starting: services.map((service) => EMULATOR_NAME[service]),
    external: LOCAL_SERVICES.filter((service) => !services.includes(service)).map(
      (service) => SERVICE_NAME[service],
    ),
  };
};

type Template = ReturnType<typeof synthesizeTemplate>;

/** Synthesis is synchronous: it runs while the emulators (child processes) boot. */
const synthesizeWhileBooting = async (
  starting: Promise<LocalAws>,
  progress: DevProgress,
): Promise<Template> => {
  try {
    progress({ kind: "synthesizing" });
    return synthesizeTemplate();
  } catch (error) {
    await starting.then((local) => local.stop()).catch(() => undefined);
    throw error;
  }
};

const provision = async (
  template: Template,
  clients: AwsClients,
  progress: DevProgress,
): Promise<ProvisionedResources> => {
  const resources = await provisionFromTemplate(template, {
    sqs: clients.sqs,
    dynamodb: clients.dynamodb,
  });
  progress({
    kind: "provisioned",
    queues: Object.keys(resources.queues).length,
    tables: Object.keys(resources.tables).length,
  });
  return resources;
};

/** The orchestrator as the deployed function builds it, and the handler both queues invoke. */
const startOrchestrator = async (
  config: RicochetConfig,
  clients: AwsClients,
  options: DevSessionOptions,
) => {
  const metrics = new CountingMetrics();
  const ports = createPorts(config, clients);
  // The shell's RICOCHET_TRACING (`console` prints spans, `on` sends them to the
  // OTEL_EXPORTER_OTLP_ENDPOINT it names) wins over the template's, which is off by default.
  const asked = (options.env ?? process.env)[ENV.TRACING]?.trim();
  const tracer = await loadTracer(TRACING_MODES.find((mode) => mode === asked) ?? config.tracing);
  const orchestrator = createOrchestratorRuntime({
    config,
    ports,
    log: options.log,
    metrics,
    tracer,
    ...(options.random === undefined ? {} : { random: options.random }),
  });
  const handler = createSqsBatchHandler(orchestrator, {
    internalQueue: config.internalQueueUrl,
    afterBatch: () => tracer?.flush(),
  });
  return { metrics, ports, orchestrator, handler };
};

/**
 * Like the deployed function: one mapping per queue, both into the same handler. Each poller's
 * stop goes first in `stops` as it starts, so pollers stop before the clients and emulators.
 */
const startPollers = (
  queueUrls: readonly string[],
  handler: SqsBatchHandler,
  session: {
    readonly clients: AwsClients;
    readonly local: LocalAws;
    readonly settings: DevSettings;
    readonly log: Log;
  },
  stops: (() => Promise<void>)[],
): void => {
  for (const queueUrl of queueUrls) {
    const poller = startEventSourcePoller({
      sqs: session.clients.sqs,
      queueUrl,
      handler,
      functionName: session.settings.functionLogicalId,
      region: session.local.region,
      logger: { error: (message, details) => session.log.error(message, details) },
      ...session.settings.poller,
    });
    stops.unshift(() => poller.stop());
  }
};

const producerEnvOf = (
  local: LocalAws,
  config: RicochetConfig,
  orchestratorEnv: Readonly<Record<string, string>>,
): Record<string, string> => ({
  ...localAwsEnv(local),
  [ENV.INGRESS_QUEUE_URL]: config.ingressQueueUrl,
  // For `ricochet redrive` from another shell: redrives go to Ricochet's own queue.
  [ENV.INTERNAL_QUEUE_URL]: config.internalQueueUrl,
  [ENV.DEAD_LETTER_QUEUE_URL]: config.deadLetterQueueUrl,
  [ENV.TABLE_NAME]: config.tableName,
  // For `ricochet targets` and `ricochet console`: whether the breakers are on here.
  [ENV.CIRCUIT_BREAKER]: orchestratorEnv[ENV.CIRCUIT_BREAKER] ?? "off",
});

/**
 * Starts Ricochet locally from the synthesized template: emulators (or a LocalStack named by
 * AWS_ENDPOINT_URL), the template's queues and table, and the orchestrator driven by a poller
 * configured like the template's event source mapping. On failure, whatever started is stopped.
 */
export const startDevSession = async (options: DevSessionOptions): Promise<DevSession> => {
  const progress = options.progress ?? (() => {});
  progress(startingStep(options.env ?? process.env));
  const starting = startLocalAws(options.env === undefined ? {} : { env: options.env });
  const template = await synthesizeWhileBooting(starting, progress);
  progress({ kind: "synthesized", resources: Object.keys(template.Resources).length });
  const local = await starting;
  progress({ kind: "emulators-ready", ...local.endpoints });
  const clients = createAwsClients({
    endpoints: local.endpoints,
    region: local.region,
    credentials: LOCAL_CREDENTIALS,
  });
  const stops: (() => Promise<void>)[] = [async () => clients.destroy(), () => local.stop()];
  const stopAll = async () => {
    for (const stop of stops) await stop().catch(() => undefined);
  };
  try {
    const resources = await provision(template, clients, progress);
    const settings = devSettingsFromTemplate(template, resources);
    const orchestratorEnv = applyLocalOverrides(settings.env, options);
    const config = loadConfig(orchestratorEnv);
    const { handler, ...running } = await startOrchestrator(config, clients, options);
    const polled = [config.ingressQueueUrl, config.internalQueueUrl];
    startPollers(polled, handler, { clients, local, settings, log: options.log }, stops);
    progress({ kind: "polling", queues: polled.length });
    let stopping: Promise<void> | undefined;
    return {
      local,
      clients,
      resources,
      settings,
      orchestratorEnv,
      config,
      ...running,
      producerEnv: producerEnvOf(local, config, orchestratorEnv),
      stop: () => {
        stopping ??= stopAll();
        return stopping;
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
};
