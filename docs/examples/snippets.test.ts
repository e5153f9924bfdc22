import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { documents, ROOT, sourceCode, typescriptBlocks } from "./snippets.ts";

// Every TypeScript block a user reads is a file here that `pnpm typecheck` compiles and
// snippets-run.test.ts runs; the block must say which and match it (`node docs/examples/snippets.ts --write`).
describe("the TypeScript blocks of README.md and docs/", () => {
  for (const document of documents()) {
    const markdown = readFileSync(join(ROOT, document), "utf8");
    const blocks = typescriptBlocks(markdown);
    if (blocks.length === 0) continue;
    it(`${document}: every block names its source and matches it`, () => {
      for (const block of blocks) {
        expect(block.source, `${document}:${block.line} has no source="…"`).toBeDefined();
        expect(block.code, `${document}:${block.line} differs from ${block.source}`).toBe(
          sourceCode(document, block.source ?? ""),
        );
      }
    });
  }

  it("finds blocks and regions as the documents write them", () => {
    const markdown = ["# T", '```ts source="a.ts#x"', "const a = 1;", "```", "```sh", "ls", "```", "```ts", "b", "```"];
    expect(typescriptBlocks(markdown.join("\n"))).toEqual([
      { line: 2, source: "a.ts#x", code: "const a = 1;", from: 2, to: 3 },
      { line: 8, source: undefined, code: "b", from: 8, to: 9 },
    ]);
  });
});
