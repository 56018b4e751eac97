import { readdirSync, readFileSync } from "node:fs";

/** The documents users learn Ricochet from: the README and every guide in docs/. */
const USER_DOCUMENTS: readonly string[] = [
  "README.md",
  ...readdirSync("docs")
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** Each user document's path and text. */
export const readUserDocuments = (): { path: string; text: string }[] =>
  USER_DOCUMENTS.map((path) => ({ path, text: readFileSync(path, "utf8") }));
