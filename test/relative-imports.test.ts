import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { CONSUMER_DOCS_FILES } from "./consumer/docs-files.ts";

// Every relative import in the repository names a file that exists, and none reaches into another
// workspace package's `src/`: a bench, script or test that needs a package's code imports it by the
// package's name, through what the package exports (bench scripts are not type-checked, so a module
// moved or deleted would otherwise go unnoticed until someone runs them).
const root = resolve(import.meta.dirname, "..");

const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((file) => /\.(ts|mts|cts)$/.test(file) && !file.endsWith(".d.ts") && existsSync(resolve(root, file)));

/** The folders with a package.json of their own (the workspace's packages), longest first. */
const packageRoots = execFileSync("git", ["ls-files", "--", "*package.json"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((file) => file.endsWith("/package.json"))
  .map((file) => dirname(file))
  .sort((a, b) => b.length - a.length);

function packageOf(file: string): string {
  return packageRoots.find((folder) => file.startsWith(`${folder}/`)) ?? ".";
}

function specifiersIn(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(resolve(root, file), "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) found.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((specifier) => specifier.startsWith("./") || specifier.startsWith("../"));
}

/** Files the consumer app's install copies in beside those of app/ (their sources, by where they land). */
const copiedIn = new Map(
  CONSUMER_DOCS_FILES.map((file) => [resolve(root, "test", "consumer", "app", basename(file)), file]),
);

/**
 * The file a relative specifier loads: as written, or the `.ts` source its `.js` name stands for, or the
 * source of a file the consumer app's install copies in.
 */
function target(path: string): string | undefined {
  const source = copiedIn.get(path);
  if (source !== undefined) return existsSync(source) ? source : undefined;
  const candidates = [
    path,
    path.replace(/\.js$/, ".ts"),
    path.replace(/\.mjs$/, ".mts"),
    path.replace(/\.cjs$/, ".cts"),
    `${path}.ts`,
    `${path}/index.ts`,
  ];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

describe("relative imports", () => {
  const imports = files.flatMap((file) =>
    specifiersIn(file).map((specifier) => ({ file, specifier, path: resolve(root, dirname(file), specifier) })),
  );

  it("reads the repository's sources", () => {
    expect(imports.length).toBeGreaterThan(1_000);
  });

  it("name files that exist", () => {
    const missing = imports.filter(({ path }) => target(path) === undefined).map((i) => `${i.file}: ${i.specifier}`);
    expect(missing).toEqual([]);
  });

  it("never reach into another package's src/ (import it by its name)", () => {
    const crossing = imports
      .filter(({ file, path }) => {
        const to = relative(root, path);
        const owner = packageOf(to);
        return owner !== packageOf(file) && to.startsWith(`${owner === "." ? "" : `${owner}/`}src/`);
      })
      .map((i) => `${i.file}: ${i.specifier}`);
    expect(crossing).toEqual([]);
  });
});
