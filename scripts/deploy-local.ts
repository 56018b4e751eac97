import { parseArgs } from "node:util";
import { deployToLocalStack } from "../lib/local/localstack-deploy.js";

/*
 * `npm run deploy:local`: deploys the Ricochet stack into a running LocalStack with cdklocal,
 * with the variables cdklocal 3.x needs and host.docker.internal allowed as a target host
 * (lib/local/localstack-deploy.ts).
 *
 *   npm run deploy:local                              # bootstrap, then deploy
 *   npm run deploy:local -- --watch                   # bootstrap, then `cdklocal watch` (hotswap)
 *   npm run deploy:local -- --allow-host 10.0.0.0/8   # allow more hosts (repeatable)
 */
const { values } = parseArgs({
  options: {
    watch: { type: "boolean", default: false },
    "allow-host": { type: "string", multiple: true, default: [] },
  },
});

const { exitCode } = await deployToLocalStack({
  watch: values.watch,
  extraHosts: values["allow-host"] ?? [],
});
process.exitCode = exitCode;
