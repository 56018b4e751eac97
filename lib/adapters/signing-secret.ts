import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { SSMClient } from "@aws-sdk/client-ssm";
import {
  ConfigurationError,
  ResourceNotFoundError,
  SecretUnavailableError,
} from "../core/errors.js";
import { createHmacSigner, type DeliverySigner } from "../core/signing.js";

/*
 * The HMAC keys live in Secrets Manager or SSM Parameter Store, never in an environment variable:
 * the variable only names where they are. The value holds one or more keys (lib/core/signing-keys.ts):
 * `whsec_` Standard Webhooks keys, and the legacy key while the old header is still sent. It is read on first use and cached for a few minutes, so
 * a rotation reaches every warm function within the cache time without a read per delivery.
 */

/** Where the signing key is kept. */
export type SecretReference =
  | { readonly store: "secretsmanager"; readonly secretId: string }
  | { readonly store: "ssm"; readonly parameterName: string };

/**
 * Reads `RICOCHET_SIGNING_SECRET`: a Secrets Manager ARN (`arn:aws:secretsmanager:…`) or
 * `secretsmanager:<name or ARN>`; an SSM parameter as `ssm:/name`, its ARN
 * (`arn:aws:ssm:…:parameter/name`) or a bare `/name`.
 * @throws ConfigurationError for anything else: a literal key in the environment is refused.
 */
export const parseSecretReference = (value: string): SecretReference => {
  const trimmed = value.trim();
  if (/^arn:aws[a-z-]*:secretsmanager:/.test(trimmed)) {
    return { store: "secretsmanager", secretId: trimmed };
  }
  if (trimmed.startsWith("secretsmanager:") && trimmed.length > "secretsmanager:".length) {
    return { store: "secretsmanager", secretId: trimmed.slice("secretsmanager:".length) };
  }
  if (/^arn:aws[a-z-]*:ssm:/.test(trimmed) || trimmed.startsWith("/")) {
    return { store: "ssm", parameterName: trimmed };
  }
  if (trimmed.startsWith("ssm:") && trimmed.length > "ssm:".length) {
    return { store: "ssm", parameterName: trimmed.slice("ssm:".length) };
  }
  throw new ConfigurationError(
    "signing secret must name a Secrets Manager secret (arn:aws:secretsmanager:… or secretsmanager:name) or an SSM parameter (ssm:/name)",
  );
};

/** Options of {@link createSigningSecretLoader}. */
export interface SigningSecretOptions {
  /** The value of `RICOCHET_SIGNING_SECRET`. */
  readonly reference: string;
  /** Defaults to a client from the standard configuration, made on first use. */
  readonly secretsManager?: SecretsManagerClient;
  readonly ssm?: SSMClient;
  /** Also sign the legacy `Ricochet-Signature` (default true; `RICOCHET_LEGACY_SIGNATURES`). */
  readonly legacySignatures?: boolean | undefined;
  /** How long a read key is reused (default five minutes). */
  readonly cacheMs?: number;
  readonly now?: () => number;
}

const DEFAULT_SECRET_CACHE_MS = 5 * 60_000;

const NOT_FOUND = new Set([
  "ResourceNotFoundException",
  "ParameterNotFound",
  "ParameterVersionNotFound",
]);

const readSecret = async (
  reference: SecretReference,
  options: SigningSecretOptions,
): Promise<string | undefined> => {
  // Each store's SDK package is loaded on the first read, so a deployment that signs with one
  // store (or does not sign) never loads the other's at cold start.
  if (reference.store === "secretsmanager") {
    const { GetSecretValueCommand, SecretsManagerClient } = await import(
      "@aws-sdk/client-secrets-manager"
    );
    const client = options.secretsManager ?? new SecretsManagerClient({});
    const output = await client.send(new GetSecretValueCommand({ SecretId: reference.secretId }));
    return output.SecretString;
  }
  const { GetParameterCommand, SSMClient } = await import("@aws-sdk/client-ssm");
  const client = options.ssm ?? new SSMClient({});
  const output = await client.send(
    new GetParameterCommand({ Name: reference.parameterName, WithDecryption: true }),
  );
  return output.Parameter?.Value;
};

const describe = (reference: SecretReference): string =>
  reference.store === "secretsmanager"
    ? `secret ${reference.secretId}`
    : `parameter ${reference.parameterName}`;

/**
 * Returns a function giving the current signing key, read from its store and cached. Concurrent
 * callers share one read. When a refresh fails but a key was read before, the old key keeps
 * being used (and the read retried on the next call): a store outage must not stop deliveries.
 * @throws ConfigurationError at once if the reference is malformed.
 */
export const createSigningSecretLoader = (
  options: SigningSecretOptions,
): (() => Promise<string>) => {
  const reference = parseSecretReference(options.reference);
  const cacheMs = options.cacheMs ?? DEFAULT_SECRET_CACHE_MS;
  const now = options.now ?? Date.now;
  let cached: { readonly value: string; readonly readAt: number } | undefined;
  let reading: Promise<string> | undefined;

  const refresh = async (): Promise<string> => {
    let value: string | undefined;
    try {
      value = await readSecret(reference, options);
    } catch (error) {
      if (cached !== undefined) return cached.value;
      const name = error instanceof Error ? error.name : "Error";
      const ErrorClass = NOT_FOUND.has(name) ? ResourceNotFoundError : SecretUnavailableError;
      throw new ErrorClass(`cannot read the signing key (${describe(reference)}): ${name}`, {
        cause: error,
      });
    }
    if (value === undefined || value === "") {
      throw new SecretUnavailableError(`the signing key (${describe(reference)}) is empty`);
    }
    cached = { value, readAt: now() };
    return value;
  };

  return async () => {
    if (cached !== undefined && now() - cached.readAt < cacheMs) return cached.value;
    reading ??= refresh().finally(() => {
      reading = undefined;
    });
    return reading;
  };
};

/** The HTTP target's signer for a deployment's `RICOCHET_SIGNING_SECRET`. */
export const createSecretSigner = (options: SigningSecretOptions): DeliverySigner =>
  createHmacSigner(createSigningSecretLoader(options), options.now ?? Date.now, {
    legacySignatures: options.legacySignatures,
  });
