/**
 * Fails when the source files of packages/ import each other in a circle.
 *
 *   node scripts/check-cycles.ts
 *
 * The graph is every non-test `.ts` file under packages/<name>/src, an edge per relative import or
 * re-export (type-only ones too: a circle of types is still two files that cannot be read apart), and an
 * edge from a file that imports `@a2a-partner/<name>` to that package's `src/index.ts`, so a circle through
 * two packages counts as well. Each circle found is printed once, as the files it goes through.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const root = resolve(import.meta.dirname, "..");
const packagesDir = join(root, "packages");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts")
      ? [path]
      : [];
  });
}

/** `@a2a-partner/<name>` → packages/<dir>/src/index.ts, read from each package's package.json. */
const packageEntries = new Map<string, string>();
const files: string[] = [];
for (const name of readdirSync(packagesDir)) {
  const src = join(packagesDir, name, "src");
  if (!existsSync(src)) continue;
  const manifest = JSON.parse(readFileSync(join(packagesDir, name, "package.json"), "utf8")) as { name: string };
  packageEntries.set(manifest.name, join(src, "index.ts"));
  files.push(...sourceFiles(src));
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (specifier.startsWith(".")) {
    const base = resolve(dirname(from), specifier);
    const candidates = [base.replace(/\.js$/, ".ts"), base, `${base}.ts`, join(base, "index.ts")];
    return candidates.find((candidate) => candidate.endsWith(".ts") && existsSync(candidate));
  }
  const name = specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");
  return packageEntries.get(name);
}

const edges = new Map<string, string[]>();
for (const file of files) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  const targets = importedFiles.flatMap(({ fileName }) => resolveImport(file, fileName) ?? []);
  edges.set(
    file,
    [...new Set(targets)].filter((target) => target !== file),
  );
}

// Depth-first search; a back edge to a file still on the path closes a circle.
const cycles = new Map<string, string[]>();
const state = new Map<string, "open" | "done">();
const path: string[] = [];
function visit(file: string): void {
  state.set(file, "open");
  path.push(file);
  for (const target of edges.get(file) ?? []) {
    if (state.get(target) === "open") {
      const cycle = path.slice(path.indexOf(target));
      // The same circle reached from another file: keyed by its files, whatever it starts with.
      cycles.set([...cycle].sort().join("\n"), cycle);
    } else if (!state.has(target)) {
      visit(target);
    }
  }
  path.pop();
  state.set(file, "done");
}
for (const file of files) if (!state.has(file)) visit(file);

if (cycles.size === 0) {
  console.log(`no import circles among ${files.length} files in packages/*/src`);
} else {
  for (const cycle of cycles.values()) {
    console.error(`import circle: ${[...cycle, cycle[0] as string].map((file) => relative(root, file)).join(" → ")}`);
  }
  process.exitCode = 1;
}
