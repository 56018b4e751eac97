import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import {
  CloudFormationClient,
  CreateStackCommand,
  DescribeStacksCommand,
  ListStackResourcesCommand,
  type StackResourceSummary,
} from "@aws-sdk/client-cloudformation";
import { CreateBucketCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { PutParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { zipSync } from "fflate";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/contract/local-identity.js";
import type { DeployedStack } from "../support/deployed-bundle.js";

/*
 * What `cdk deploy` does for a bootstrapped account, done against moto's CloudFormation by hand:
 * the bootstrap version parameter the template's rule checks, the assets bucket, every file asset
 * of the cloud assembly (directories zipped, as cdk-assets packs them), then `CreateStack`. Not
 * `cdk deploy` itself: its change-set path loses the stack's outputs on moto, and moto accepts
 * only `localhost` template URLs, not the loopback address the tests use.
 */

/** The account moto answers as, unless told otherwise. */
export const MOTO_ACCOUNT = "123456789012";

/** The CDK's default bootstrap qualifier, in the parameter and bucket names the template uses. */
const QUALIFIER = "hnb659fds";

/** A version above every `CheckBootstrapVersion` rule the CDK writes. */
const BOOTSTRAP_VERSION = "30";

/** One file asset of the assembly's `<stack>.assets.json`. */
interface FileAsset {
  readonly source: { readonly path: string; readonly packaging?: "zip" | "file" };
  readonly destinations: Readonly<
    Record<string, { readonly bucketName: string; readonly objectKey: string }>
  >;
}

/** A stack moto built: its outputs and its resources by logical id. */
export interface MotoStack {
  readonly stackName: string;
  readonly status: string;
  readonly outputs: Readonly<Record<string, string>>;
  readonly resources: ReadonlyMap<string, StackResourceSummary>;
  /** The physical id of a template resource. */
  physicalId(logicalId: string): string;
}

const clientConfig = (endpoint: string) => ({
  endpoint,
  region: LOCAL_REGION,
  credentials: LOCAL_CREDENTIALS,
});

/** A CloudFormation `Fn::Sub` placeholder, as the assets manifest writes it. */
const sub = (name: string): string => ["$", "{", name, "}"].join("");

const placeholders = (text: string): string =>
  text.replaceAll(sub("AWS::AccountId"), MOTO_ACCOUNT).replaceAll(sub("AWS::Region"), LOCAL_REGION);

/** Every file under `dir`, by its path relative to `dir`, as a zip's entries. */
const zipDirectory = (dir: string): Uint8Array => {
  const entries: Record<string, Uint8Array> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else entries[relative(dir, path)] = readFileSync(path);
    }
  };
  walk(dir);
  return zipSync(entries);
};

/** Uploads every file asset of the assembly to moto's S3, where the template expects it. */
const publishAssets = async (s3: S3Client, stack: DeployedStack, stackName: string) => {
  const manifest = JSON.parse(
    readFileSync(join(stack.outdir, `${stackName}.assets.json`), "utf8"),
  ) as { files?: Readonly<Record<string, FileAsset>> };
  const buckets = new Set<string>();
  for (const asset of Object.values(manifest.files ?? {})) {
    const path = join(stack.outdir, asset.source.path);
    const body = asset.source.packaging === "zip" ? zipDirectory(path) : readFileSync(path);
    for (const destination of Object.values(asset.destinations)) {
      const bucket = placeholders(destination.bucketName);
      if (!buckets.has(bucket)) {
        await s3.send(new CreateBucketCommand({ Bucket: bucket }));
        buckets.add(bucket);
      }
      await s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: destination.objectKey, Body: body }),
      );
    }
  }
};

const allResources = async (
  cfn: CloudFormationClient,
  stackName: string,
): Promise<StackResourceSummary[]> => {
  const all: StackResourceSummary[] = [];
  let token: string | undefined;
  do {
    const page = await cfn.send(
      new ListStackResourcesCommand({ StackName: stackName, NextToken: token }),
    );
    all.push(...(page.StackResourceSummaries ?? []));
    token = page.NextToken;
  } while (token !== undefined);
  return all;
};

/**
 * Creates the synthesized stack in moto at `endpoint` as `cdk deploy` would in a bootstrapped
 * account, and reads back what moto reports it built.
 * @throws Error when moto does not reach `CREATE_COMPLETE`, with the status and its reason.
 */
export const createStackInMoto = async (
  endpoint: string,
  stack: DeployedStack,
  stackName: string,
): Promise<MotoStack> => {
  const config = clientConfig(endpoint);
  const s3 = new S3Client({ ...config, forcePathStyle: true });
  const ssm = new SSMClient(config);
  const cfn = new CloudFormationClient(config);
  await ssm.send(
    new PutParameterCommand({
      Name: `/cdk-bootstrap/${QUALIFIER}/version`,
      Value: BOOTSTRAP_VERSION,
      Type: "String",
      Overwrite: true,
    }),
  );
  await publishAssets(s3, stack, "Ricochet");
  await cfn.send(
    new CreateStackCommand({
      StackName: stackName,
      TemplateBody: JSON.stringify(stack.template),
      Capabilities: ["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM", "CAPABILITY_AUTO_EXPAND"],
    }),
  );
  const described = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
  const built = described.Stacks?.[0];
  const status = built?.StackStatus ?? "missing";
  if (status !== "CREATE_COMPLETE") {
    throw new Error(`moto did not create ${stackName}: ${status} (${built?.StackStatusReason})`);
  }
  const resources = new Map(
    (await allResources(cfn, stackName)).map((r) => [r.LogicalResourceId ?? "", r]),
  );
  const outputs = Object.fromEntries(
    (built?.Outputs ?? []).map((o) => [o.OutputKey ?? "", o.OutputValue ?? ""]),
  );
  return {
    stackName,
    status,
    outputs,
    resources,
    physicalId: (logicalId) => {
      const id = resources.get(logicalId)?.PhysicalResourceId;
      if (id === undefined) throw new Error(`moto built no ${logicalId}`);
      return id;
    },
  };
};
