import type { LocalAwsTarget } from "../../lib/adapters/aws-clients.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The emulators (or LocalStack) the global setup started for this run; read it with `inject`. */
    localAws: LocalAwsTarget;
  }
}
