import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { SSMClient } from "@aws-sdk/client-ssm";
import { afterEach, describe, expect, it } from "vitest";
import {
  createSecretSigner,
  createSigningSecretLoader,
  parseSecretReference,
} from "../../lib/adapters/signing-secret.js";
import {
  ConfigurationError,
  ResourceNotFoundError,
  SecretUnavailableError,
} from "../../lib/core/errors.js";
import { signDelivery } from "../../lib/core/signing.js";
import { type Handler, type LocalReceiver, startReceiver } from "./targets/local-servers.js";

/*
 * No Secrets Manager or SSM emulator runs here: a local server answers their JSON APIs
 * (X-Amz-Target: secretsmanager.GetSecretValue / AmazonSSM.GetParameter) for the real clients.
 */

const SM_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:ricochet-signing-AbCdEf";

const open: LocalReceiver[] = [];
const clients: { destroy(): void }[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await Promise.all(open.splice(0).map((server) => server.close()));
});

const clientConfig = (port: number) => ({
  endpoint: `http://127.0.0.1:${port}`,
  region: "us-east-1",
  credentials: { accessKeyId: "test", secretAccessKey: "test" },
  maxAttempts: 1,
});

/** A fake of both APIs, answering from a mutable key so tests can rotate it. */
const fakeStores = async (state: { key: string; fail?: boolean }): Promise<LocalReceiver> => {
  const handler: Handler = (req, res) => {
    const target = String(req.headers["x-amz-target"]);
    const json = (status: number, body: unknown): void => {
      res
        .writeHead(status, { "Content-Type": "application/x-amz-json-1.1" })
        .end(JSON.stringify(body));
    };
    if (state.fail) return json(500, { __type: "InternalServiceError", message: "down" });
    const input = JSON.parse(req.body) as {
      SecretId?: string;
      Name?: string;
      WithDecryption?: boolean;
    };
    if (target === "secretsmanager.GetSecretValue") {
      if (input.SecretId !== SM_ARN && input.SecretId !== "ricochet-signing") {
        return json(400, { __type: "ResourceNotFoundException", message: "no such secret" });
      }
      return json(200, { ARN: SM_ARN, Name: "ricochet-signing", SecretString: state.key });
    }
    if (target === "AmazonSSM.GetParameter") {
      if (input.Name !== "/ricochet/signing")
        return json(400, { __type: "ParameterNotFound", message: "no" });
      if (input.WithDecryption !== true)
        return json(200, { Parameter: { Name: input.Name, Value: "ciphertext" } });
      return json(200, { Parameter: { Name: input.Name, Type: "SecureString", Value: state.key } });
    }
    json(400, { __type: "UnknownOperationException" });
  };
  const server = await startReceiver(handler);
  open.push(server);
  return server;
};

const clientsFor = (port: number) => {
  const secretsManager = new SecretsManagerClient(clientConfig(port));
  const ssm = new SSMClient(clientConfig(port));
  clients.push(secretsManager, ssm);
  return { secretsManager, ssm };
};

describe("parseSecretReference", () => {
  it.each([
    [SM_ARN, { store: "secretsmanager", secretId: SM_ARN }],
    ["secretsmanager:ricochet-signing", { store: "secretsmanager", secretId: "ricochet-signing" }],
    ["ssm:/ricochet/signing", { store: "ssm", parameterName: "/ricochet/signing" }],
    ["/ricochet/signing", { store: "ssm", parameterName: "/ricochet/signing" }],
    [
      "arn:aws:ssm:us-east-1:123456789012:parameter/ricochet/signing",
      {
        store: "ssm",
        parameterName: "arn:aws:ssm:us-east-1:123456789012:parameter/ricochet/signing",
      },
    ],
  ])("reads %s", (value, expected) => {
    expect(parseSecretReference(value)).toEqual(expected);
  });

  it.each(["whsec_literal_key", "", "ssm:", "secretsmanager:"])("refuses %j", (value) => {
    expect(() => parseSecretReference(value)).toThrow(ConfigurationError);
  });
});

describe("createSigningSecretLoader", () => {
  it.each([
    ["Secrets Manager by ARN", SM_ARN],
    ["Secrets Manager by name", "secretsmanager:ricochet-signing"],
    ["SSM, decrypted", "ssm:/ricochet/signing"],
  ])("reads the key from %s", async (_name, reference) => {
    const server = await fakeStores({ key: "k-1" });
    const load = createSigningSecretLoader({ reference, ...clientsFor(server.port) });
    expect(await load()).toBe("k-1");
  });

  it("reuses the key within the cache time and rereads it after", async () => {
    const state = { key: "k-1" };
    const server = await fakeStores(state);
    let now = 0;
    const load = createSigningSecretLoader({
      reference: SM_ARN,
      ...clientsFor(server.port),
      cacheMs: 1000,
      now: () => now,
    });
    await Promise.all([load(), load(), load()]);
    expect(server.seen).toHaveLength(1);
    state.key = "k-2";
    now = 999;
    expect(await load()).toBe("k-1");
    now = 1000;
    expect(await load()).toBe("k-2");
    expect(server.seen).toHaveLength(2);
  });

  it("keeps using the last key when a refresh fails", async () => {
    const state = { key: "k-1", fail: false };
    const server = await fakeStores(state);
    let now = 0;
    const load = createSigningSecretLoader({
      reference: SM_ARN,
      ...clientsFor(server.port),
      cacheMs: 10,
      now: () => now,
    });
    await load();
    state.fail = true;
    now = 100;
    expect(await load()).toBe("k-1");
  });

  it.each([
    ["a missing secret", "secretsmanager:other", false, ResourceNotFoundError],
    ["a missing parameter", "ssm:/other", false, ResourceNotFoundError],
    ["an outage", SM_ARN, true, SecretUnavailableError],
  ])("throws a named error for %s", async (_name, reference, fail, ErrorClass) => {
    const server = await fakeStores({ key: "k-1", fail });
    const load = createSigningSecretLoader({ reference, ...clientsFor(server.port) });
    await expect(load()).rejects.toBeInstanceOf(ErrorClass);
  });
});

describe("createSecretSigner", () => {
  it("signs with the stored key at the injected time", async () => {
    const server = await fakeStores({ key: "k-1" });
    const signer = createSecretSigner({
      reference: SM_ARN,
      ...clientsFor(server.port),
      now: () => 5_000_000,
    });
    expect(await signer({ eventId: "evt-1", body: "{}" })).toEqual(
      signDelivery(
        { standard: [], legacy: "k-1" },
        { eventId: "evt-1", timestampSeconds: 5000, body: "{}" },
      ),
    );
  });

  it("signs with every whsec_ key the stored value holds, and drops the old header when told", async () => {
    const keys = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];
    const server = await fakeStores({
      key: keys.map((key) => `whsec_${key.toString("base64")}`).join("\n"),
    });
    const signer = createSecretSigner({
      reference: SM_ARN,
      ...clientsFor(server.port),
      legacySignatures: false,
      now: () => 5_000_000,
    });
    expect(await signer({ eventId: "evt-1", replay: 1, body: "{}" })).toEqual(
      signDelivery(
        { standard: keys, legacy: "" },
        { eventId: "evt-1", replay: 1, timestampSeconds: 5000, body: "{}" },
        { legacySignatures: false },
      ),
    );
  });
});
