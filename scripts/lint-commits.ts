import { execFileSync, spawnSync } from "node:child_process";

/*
 * Checks every commit after FIRST_CHECKED's parent against commitlint.config.js. Older history
 * predates the rule and is left as it is. A clone without that commit (a shallow one) cannot
 * be checked: it says so and passes, since failing there would say nothing about the commits.
 */

/** The first commit held to Conventional Commits: issue #33's first. */
const FIRST_CHECKED = "1edbb0d";

const hasCommit = (ref: string): boolean =>
  spawnSync("git", ["cat-file", "-e", `${ref}^{commit}`], { stdio: "ignore" }).status === 0;

if (!hasCommit(FIRST_CHECKED)) {
  console.log(`lint:commits: ${FIRST_CHECKED} is not in this clone's history; nothing checked`);
  process.exit(0);
}
const count = execFileSync("git", ["rev-list", "--count", "--no-merges", `${FIRST_CHECKED}^..HEAD`])
  .toString()
  .trim();
const result = spawnSync("npx", ["commitlint", "--from", `${FIRST_CHECKED}^`, "--to", "HEAD"], {
  stdio: "inherit",
});
if (result.status === 0)
  console.log(`lint:commits: ${count} commit(s) since ${FIRST_CHECKED} pass`);
process.exit(result.status ?? 1);
