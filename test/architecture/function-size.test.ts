import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./layers.js";

/*
 * Issue #33's two size rules, kept: no function in lib/ longer than 80 lines (a nested function
 * counts on its own, and its lines count in the function around it too, so a 200-line closure
 * cannot hide behind small inner functions), and no function in lib/app taking more than four
 * parameters (a step that needs more takes the message in hand, or an object).
 */

const LIB = fileURLToPath(new URL("../../lib/", import.meta.url));
const MAX_LINES = 80;
const MAX_APP_PARAMETERS = 4;

interface FunctionShape {
  readonly where: string;
  readonly lines: number;
  readonly parameters: number;
}

const nameOf = (node: ts.SignatureDeclaration): string => {
  if (node.name !== undefined) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return parent.name.getText();
  }
  return "(anonymous)";
};

const isFunction = (node: ts.Node): node is ts.SignatureDeclaration & ts.Node =>
  ts.isFunctionDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node) ||
  ts.isMethodDeclaration(node);

/** Every function of every module under lib/, with its length and parameter count. */
const functionsOfLib = (): FunctionShape[] =>
  sourceFiles(LIB).flatMap((file) => {
    const path = relative(LIB, file).split(sep).join("/");
    const source = ts.createSourceFile(
      file,
      readFileSync(file, "utf8"),
      ts.ScriptTarget.ES2022,
      true,
    );
    const found: FunctionShape[] = [];
    const visit = (node: ts.Node): void => {
      if (isFunction(node)) {
        const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        found.push({
          where: `lib/${path}:${first + 1} ${nameOf(node)}`,
          lines: last - first + 1,
          parameters: node.parameters.length,
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  });

describe("the functions in lib/", () => {
  const functions = functionsOfLib();

  it("are found (the walk reads lib/)", () => {
    expect(functions.length).toBeGreaterThan(500);
  });

  it(`are at most ${MAX_LINES} lines long`, () => {
    const long = functions.filter((f) => f.lines > MAX_LINES).map((f) => `${f.where}: ${f.lines}`);
    expect(long).toEqual([]);
  });

  it(`take at most ${MAX_APP_PARAMETERS} parameters in lib/app`, () => {
    const many = functions
      .filter((f) => f.where.startsWith("lib/app/") && f.parameters > MAX_APP_PARAMETERS)
      .map((f) => `${f.where}: ${f.parameters}`);
    expect(many).toEqual([]);
  });
});
