import { createRequire } from "node:module";
import type * as DynamoDbClientModule from "@aws-sdk/client-dynamodb";
import type * as SqsClientModule from "@aws-sdk/client-sqs";
import type * as DynamoDbDocumentModule from "@aws-sdk/lib-dynamodb";
import type * as DynamoDbUtilModule from "@aws-sdk/util-dynamodb";

/*
 * The AWS SDK packages of the orchestrator's hot path, loaded on first use through Node's
 * CommonJS loader instead of `import`. Two measured reasons (docs/benchmark-history.md, "Cold start"):
 *
 * - The SDK ships CommonJS. An ESM `import` of it makes Node pre-parse every re-exported module
 *   for its export names (cjs-module-lexer over the whole @smithy graph): loading these four
 *   packages took ~300 ms that way against ~130 ms through `require`, on Node 20.
 * - Nothing is loaded before a client or command is first asked for, so a module that wires
 *   adapters (the orchestrator function) decides when the SDK's cost is paid.
 *
 * Only types are imported statically, so bundles carry no top-level SDK import. Every caller
 * shares Node's module cache, so a class loaded here is the class a test imports by name.
 */
const requireSdk = createRequire(import.meta.url);

const loadOnce = <Module>(id: string): (() => Module) => {
  let loaded: Module | undefined;
  return () => {
    loaded ??= requireSdk(id) as Module;
    return loaded;
  };
};

/** `@aws-sdk/client-sqs`, loaded on the first call. */
export const sqsSdk = loadOnce<typeof SqsClientModule>("@aws-sdk/client-sqs");

/** `@aws-sdk/client-dynamodb`, loaded on the first call. */
export const dynamoDbSdk = loadOnce<typeof DynamoDbClientModule>("@aws-sdk/client-dynamodb");

/** `@aws-sdk/lib-dynamodb` (the document client and its commands), loaded on the first call. */
export const dynamoDbDocumentSdk = loadOnce<typeof DynamoDbDocumentModule>("@aws-sdk/lib-dynamodb");

/** `@aws-sdk/util-dynamodb` (marshalling), loaded on the first call. */
export const dynamoDbUtilSdk = loadOnce<typeof DynamoDbUtilModule>("@aws-sdk/util-dynamodb");
