import type * as z from "zod";
import type { InputProblem } from "./errors.js";

type Issue = z.core.$ZodIssue;

/** What an unknown field of a strict object is told. */
export const NOT_RECOGNIZED = "is not a recognized field";

const joinPath = (path: readonly PropertyKey[]): string => path.map(String).join(".");

/*
 * zod reports a rejected record key as "Invalid key in record" with the real reason nested, and
 * all unknown fields of an object in one issue at the object's path. Both are unpacked so every
 * problem sits at the path of the thing that is wrong and says why.
 */
const issueProblems = (issue: Issue, prefix: readonly PropertyKey[]): InputProblem[] => {
  const path = [...prefix, ...issue.path];
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({
      path: joinPath([...path, key]),
      message: NOT_RECOGNIZED,
    }));
  }
  if ((issue.code === "invalid_key" || issue.code === "invalid_element") && issue.issues.length) {
    return issue.issues.flatMap((inner) => issueProblems(inner, path));
  }
  const check = issue.code === "custom" ? issue.params?.check : undefined;
  const problem = { path: joinPath(path), message: issue.message };
  return [typeof check === "string" ? { ...problem, check } : problem];
};

/** Turns a zod error into our path-located problems (`target.headers.X-Key`, `policy.jitter`). */
export const toProblems = (error: z.ZodError): InputProblem[] =>
  error.issues.flatMap((issue) => issueProblems(issue, []));
