/**
 * The TypeScript code blocks of README.md, docs/*.md and every package's README.md come from files under
 * docs/examples/, which are type-checked (`pnpm typecheck`) and run (`snippets-run.test.ts`). A block
 * names its source in its info string, relative to the Markdown file:
 * ```ts source="examples/embedding/express.ts#snippet"``` is the region between `// #region snippet` and
 * `// #endregion snippet` of that file; without `#name`, the whole file. `snippets.test.ts` fails when a block differs from its source; this script rewrites the blocks:
 *
 *   node docs/examples/snippets.ts --write
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "..", "..");

/** The Markdown a user reads whose TypeScript blocks must come from a source: README.md, docs/, the packages' READMEs. */
export function documents(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join("docs", name));
  const packages = readdirSync(join(ROOT, "packages"))
    .map((name) => join("packages", name, "README.md"))
    .filter((readme) => existsSync(join(ROOT, readme)));
  return ["README.md", ...docs.sort(), ...packages.sort()];
}

export interface CodeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The `source="…"` of the info string, if any. */
  source: string | undefined;
  code: string;
  /** Index of the first code line and of the closing fence among the file's lines. */
  from: number;
  to: number;
}

const TYPESCRIPT_FENCE = /^```(?:ts|typescript|mts|tsx)(?:\s+(.*))?$/;

/** Every TypeScript fenced block of `markdown`. */
export function typescriptBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (!line.startsWith("```")) continue;
    const opening = TYPESCRIPT_FENCE.exec(line);
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? "")) end++;
    if (opening) {
      const source = /\bsource="([^"]+)"/.exec(opening[1] ?? "")?.[1];
      blocks.push({ line: i + 1, source, code: lines.slice(i + 1, end).join("\n"), from: i + 1, to: end });
    }
    i = end;
  }
  return blocks;
}

/** The code a block's `source` names, from the file beside `document` (a path under ROOT). */
export function sourceCode(document: string, source: string): string {
  const [file = "", region] = source.split("#");
  const text = readFileSync(join(ROOT, dirname(document), file), "utf8");
  if (region === undefined) return text.replace(/\n+$/, "");
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.trim() === `// #region ${region}`);
  const end = lines.findIndex((line, index) => index > start && line.trim() === `// #endregion ${region}`);
  if (start < 0 || end < 0) throw new Error(`${file} has no region "${region}"`);
  return dedent(lines.slice(start + 1, end)).join("\n");
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((line) => line.trim() !== "").map((line) => /^ */.exec(line)?.[0].length ?? 0);
  const indent = Math.min(...indents);
  return lines.map((line) => line.slice(indent));
}

/** `markdown` with every sourced block replaced by its source's code. */
export function synced(document: string, markdown: string): string {
  const lines = markdown.split("\n");
  for (const block of typescriptBlocks(markdown).reverse()) {
    if (block.source === undefined) continue;
    lines.splice(block.from, block.to - block.from, ...sourceCode(document, block.source).split("\n"));
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const write = process.argv.includes("--write");
  let stale = 0;
  for (const document of documents()) {
    const markdown = readFileSync(join(ROOT, document), "utf8");
    const next = synced(document, markdown);
    if (next === markdown) continue;
    stale++;
    if (write) writeFileSync(join(ROOT, document), next);
    console.log(`${write ? "rewrote" : "differs from its sources"}: ${relative(ROOT, join(ROOT, document))}`);
  }
  if (stale > 0 && !write) process.exitCode = 1;
}
