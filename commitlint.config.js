/*
 * Commit messages: Conventional Commits, the layer as scope, a subject of at most 72 characters
 * (issue #33). Checked by `npm run lint:commits` (scripts/lint-commits.ts) in `.ci/run`.
 */

/** The scopes a commit may name: lib's layers, the other top-level parts, and the documents. */
const SCOPES = [
  // lib/ and functions/
  "adapters",
  "app",
  "cli",
  "client",
  "console",
  "contract",
  "core",
  "functions",
  "infra",
  "local",
  "receiver",
  "runtime",
  // the rest of the repository
  "bench",
  "ci",
  "deps",
  "repo",
  "scripts",
  "simulation",
  "system",
  "test",
  // documents
  "changelog",
  "design",
  "docs",
  "readme",
];

export default {
  extends: ["@commitlint/config-conventional"],
  rules: {
    "header-max-length": [2, "always", 72],
    "scope-empty": [2, "never"],
    "scope-enum": [2, "always", SCOPES],
  },
};
