import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { headingAnchors } from "../scripts/packages/readme-links.ts";

// Every relative link of the repository's Markdown (README, docs/, the packages' READMEs, the notebook)
// points at a file that exists and, with an #anchor, at a heading that makes it: a section moved from
// one page to another must take its links along.
const ROOT = resolve(import.meta.dirname, "..");
const SKIP = new Set(["node_modules", "dist", ".git", ".data", ".tck", ".changeset"]);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith(".md") && !/CHANGELOG\.md$|\.api\.md$/.test(name) ? [path] : [];
  });
}

/** `[text](target)` outside code, with its line. */
function links(markdown: string): Array<{ line: number; target: string }> {
  const found: Array<{ line: number; target: string }> = [];
  let fenced = false;
  markdown.split("\n").forEach((text, index) => {
    if (/^\s*(```|~~~)/.test(text)) fenced = !fenced;
    if (fenced) return;
    const prose = text.replace(/`[^`]*`/g, "");
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ line: index + 1, target: match[1] ?? "" });
    }
  });
  return found;
}

const anchorsOf = new Map<string, Set<string>>();
function anchors(path: string): Set<string> {
  let set = anchorsOf.get(path);
  if (!set) {
    set = headingAnchors(readFileSync(path, "utf8"));
    anchorsOf.set(path, set);
  }
  return set;
}

describe("links between the repository's Markdown files", () => {
  const files = markdownFiles(ROOT);

  it("finds the documents", () => {
    expect(files.map((file) => relative(ROOT, file))).toEqual(
      expect.arrayContaining(["README.md", "docs/operations.md", "docs/design/push-delivery.md", "bench/NOTES.md"]),
    );
  });

  it("resolves every relative link and anchor", () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const { line, target } of links(readFileSync(file, "utf8"))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue;
        const [path = "", anchor] = target.split("#");
        const resolved = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
        const where = `${relative(ROOT, file)}:${line} → ${target}`;
        if (!existsSync(resolved)) broken.push(`${where}: no such file`);
        else if (anchor && resolved.endsWith(".md") && !anchors(resolved).has(decodeURIComponent(anchor))) {
          broken.push(`${where}: no heading makes #${anchor}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
