import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./layers.js";

/*
 * What lib/'s TSDoc promises must be true of the code: every `{@link Name}` names something the
 * file can see (a link to nothing is a rename the comment missed), and every error an entry
 * point's API says it throws (`@throws Name`) can be caught by name from that entry point.
 * Both read the TypeScript program as the compiler does, so a link resolves exactly when an
 * editor would follow it.
 */

const ROOT = join(import.meta.dirname, "..", "..");
const LIB = join(ROOT, "lib");

/** The package's entry points, by the specifier users import them with. */
const ENTRY_POINTS = {
  ricochet: "lib/index.ts",
  "ricochet/infra": "lib/infra/index.ts",
  "ricochet/receiver": "lib/receiver.ts",
} as const;

const program = ts.createProgram(sourceFiles(LIB), {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: ["node"],
});
const checker = program.getTypeChecker();
const libFiles = program
  .getSourceFiles()
  .filter((file) => file.fileName.startsWith(LIB) && !file.isDeclarationFile);

type LinkNode = ts.JSDocLink | ts.JSDocLinkCode | ts.JSDocLinkPlain;
const isLink = (node: ts.Node): node is LinkNode =>
  ts.isJSDocLink(node) || ts.isJSDocLinkCode(node) || ts.isJSDocLinkPlain(node);

/** Every `{@link}` with a name (not a URL) in a file's doc comments. */
const linksIn = (file: ts.SourceFile): LinkNode[] => {
  const links: LinkNode[] = [];
  const visit = (node: ts.Node): void => {
    if (isLink(node) && node.name !== undefined) links.push(node);
    // Doc comments hang off the declarations they document, not in the ordinary child list.
    for (const doc of (node as { jsDoc?: ts.Node[] }).jsDoc ?? []) visit(doc);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return links;
};

/** `http://…` is parsed as a link named `http` with the rest as text: it names no symbol. */
const isUrl = (link: LinkNode): boolean =>
  /^[a-z]+:\/\//.test(link.getText().replace(/^\{@link\w*\s+/, ""));

const where = (file: ts.SourceFile, node: ts.Node): string => {
  const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
  return `${relative(ROOT, file.fileName)}:${line + 1}`;
};

/** What an entry point exports, as the checker sees its module. */
const exportedSymbols = (entry: string): ts.Symbol[] => {
  const file = program.getSourceFile(join(ROOT, entry));
  const module = file && checker.getSymbolAtLocation(file);
  if (module === undefined) throw new Error(`${entry} is not in the program`);
  return checker.getExportsOfModule(module);
};

/** The names an entry point exports. */
const exportsOf = (entry: string): Set<string> =>
  new Set(exportedSymbols(entry).map((s) => s.getName()));

/** The declarations an entry point exports, with their members (a class's methods). */
const exportedDeclarations = (entry: string): ts.Declaration[] =>
  exportedSymbols(entry).flatMap((exported) => {
    const symbol =
      exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    return (symbol.declarations ?? []).flatMap((declaration) => [
      declaration,
      ...(ts.isClassDeclaration(declaration) || ts.isInterfaceDeclaration(declaration)
        ? [...declaration.members]
        : []),
    ]);
  });

/** The error class a `@throws` tag names: its first word. */
const thrownName = (tag: ts.JSDocTag): string | undefined => {
  const text = ts.getTextOfJSDocComment(tag.comment) ?? "";
  return /^\s*\{?([A-Z]\w*)/.exec(text)?.[1];
};

describe("lib's TSDoc", () => {
  it("links only to names the file can see", () => {
    const broken = libFiles.flatMap((file) =>
      linksIn(file)
        .filter((link) => !isUrl(link))
        .filter(
          (link) => link.name !== undefined && checker.getSymbolAtLocation(link.name) === undefined,
        )
        .map((link) => `${where(file, link)} ${link.getText(file)}`),
    );
    expect(broken).toEqual([]);
  });

  it.each(Object.entries(ENTRY_POINTS))(
    "%s exports every error its API says it throws",
    (_specifier, entry) => {
      const exported = exportsOf(entry);
      const unexported = exportedDeclarations(entry).flatMap((declaration) =>
        ts
          .getJSDocTags(declaration)
          .filter((tag) => tag.tagName.text === "throws")
          .flatMap((tag) => {
            const name = thrownName(tag);
            if (name === undefined || name === "Error" || exported.has(name)) return [];
            return [`${where(declaration.getSourceFile(), tag)} @throws ${name}`];
          }),
      );
      expect(unexported).toEqual([]);
    },
  );
});
