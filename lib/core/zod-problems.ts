import type { z } from "zod";
import type { InputProblem } from "./errors.js";

/** Turns a zod error into our path-located problems (`target.headers.X-Key`, `policy.jitter`). */
export const toProblems = (error: z.ZodError): InputProblem[] =>
  error.issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
