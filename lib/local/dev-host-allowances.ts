import { ENV } from "../contract/environment.js";
import { parseList } from "../runtime/config.js";

/** The demo receiver's address: the demo's targets are on this machine. */
const DEMO_RECEIVER_HOST = "127.0.0.1";

/** Hosts a local run lets HTTP targets reach beyond the template's list, and on whose word. */
export interface HostAllowance {
  readonly hosts: readonly string[];
  /** Completes "… added to the allowed target hosts", for the banner. */
  readonly reason: string;
}

export interface HostAllowanceSources {
  /** Whether the demo runs: its receiver listens on {@link DEMO_RECEIVER_HOST}. */
  readonly demo: boolean;
  /** `--allow-host` values, in the order given. */
  readonly flagHosts: readonly string[];
  /** The environment `ricochet dev` was started with. */
  readonly env: NodeJS.ProcessEnv;
}

/**
 * What a local run adds to the template's allowed target hosts. The template describes the
 * deployment, whose list rarely names this machine; a developer's receiver on 127.0.0.1 must be
 * allowed without editing `cdk.json`, so `--allow-host` and `RICOCHET_ALLOWED_TARGET_HOSTS` in
 * the environment of `npm start` add to the template's list (they never remove from it).
 */
export const hostAllowances = ({ demo, flagHosts, env }: HostAllowanceSources): HostAllowance[] => {
  const fromEnv = parseList(env[ENV.ALLOWED_TARGET_HOSTS]);
  return [
    { hosts: demo ? [DEMO_RECEIVER_HOST] : [], reason: "for the demo receiver" },
    { hosts: flagHosts, reason: "by --allow-host" },
    { hosts: fromEnv, reason: `by ${ENV.ALLOWED_TARGET_HOSTS} in the environment` },
  ].filter((allowance) => allowance.hosts.length > 0);
};

/** Banner lines naming each allowance, so nobody mistakes a local allowance for the deployed list. */
export const describeHostAllowances = (allowances: readonly HostAllowance[]): string[] =>
  allowances.map((a) => `${a.hosts.join(", ")} added to the allowed target hosts ${a.reason}`);
