import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { METHODS } from "@a2a-partner/a2a-core/protocol";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// A method is its module, its row in the method table, its schema and its client call: adding one must
// not mean touching a dozen files (docs/architecture.md, "A method is a row and a file"). This counts
// the source files that name each method outside comments (identifiers and string literals).
const MAX_FILES = 4;
const root = resolve(import.meta.dirname, "..");

const sources = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "packages", "examples"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\n")
  .filter((file) => /^(packages|examples)\/[^/]+\/src\/.*\.ts$/.test(file) && !file.endsWith(".test.ts"));

function namesIn(file: string, names: ReadonlySet<string>): Set<string> {
  const text = readFileSync(resolve(root, file), "utf8");
  const found = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      if (names.has(node.text)) found.add(node.text);
    } else if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      for (const word of node.text.split(/\W+/)) if (names.has(word)) found.add(word);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return found;
}

describe("where a method is named", () => {
  it(`names each method in at most ${MAX_FILES} source files`, () => {
    const names = new Set(Object.keys(METHODS));
    const filesOf = new Map<string, string[]>([...names].map((name) => [name, []]));
    for (const file of sources) for (const name of namesIn(file, names)) filesOf.get(name)?.push(file);
    const over = [...filesOf].filter(([, files]) => files.length > MAX_FILES);
    expect(over).toEqual([]);
    // The module and the table name every method: the count is a real one.
    for (const files of filesOf.values()) expect(files).toContain("packages/a2a-core/src/protocol/method-table.ts");
  });
});
