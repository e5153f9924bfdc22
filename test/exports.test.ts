import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";

// Every `exports` key of every published package must load from both module systems and ship types.
const root = join(import.meta.dirname, "..");
const packages = readdirSync(join(root, "packages")).map((name) => join(root, "packages", name));
const require = createRequire(import.meta.url);

/** The version a plain `>=X.Y.Z` range starts at; undefined for any other form (not judged). */
function nodeFloor(range: string | undefined): [number, number, number] | undefined {
  const match = range?.trim().match(/^>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/);
  return match ? [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)] : undefined;
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

interface Conditions {
  import: { types: string; default: string };
  require: { types: string; default: string };
}

describe.each(packages)("package %s", (dir) => {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const entries = Object.entries(manifest.exports as Record<string, Conditions | string>).filter(
    ([key]) => key !== "./package.json",
  );

  it("is public, side-effect free, and declares a Node 22 floor no lower than its dependencies' own", () => {
    expect(manifest.private).not.toBe(true);
    expect(manifest.sideEffects).toBe(false);
    const floor = nodeFloor(manifest.engines.node);
    expect(floor?.[0], `engines.node ${manifest.engines.node}`).toBe(22);
    // An install on a Node between the two would warn (EBADENGINE) or break inside the dependency.
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      // pnpm links every direct dependency here (not every package exports its package.json).
      const dependency = JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8"));
      const theirs = nodeFloor(dependency.engines?.node);
      if (theirs)
        expect(
          compareVersions(floor ?? [0, 0, 0], theirs),
          `${name} needs node ${dependency.engines.node}`,
        ).toBeGreaterThanOrEqual(0);
    }
    expect(manifest.publishConfig.access).toBe("public");
  });

  const dual = entries.filter(([, target]) => typeof target === "object" && "require" in target);
  const esmOnly = entries.filter(([, target]) => typeof target === "object" && !("require" in target));

  it.each(dual)("export %s loads as ESM and CJS with the same names, and has types for both", async (_key, target) => {
    const conditions = target as Conditions;
    for (const file of [conditions.import.types, conditions.require.types])
      expect(existsSync(join(dir, file))).toBe(true);
    const esm = await import(pathToFileURL(join(dir, conditions.import.default)).href);
    const cjs = require(join(dir, conditions.require.default));
    expect(Object.keys(esm).length).toBeGreaterThan(0);
    expect(Object.keys(cjs).sort()).toEqual(Object.keys(esm).sort());
  });

  // A bundler renames a class that refers to itself (`_TaskNotFoundError`); users see the name in
  // `console.log(err)`, stack traces and `err.constructor.name`, so every exported error class keeps it.
  it.each(dual)("export %s keeps its error classes' names in both builds", async (_key, target) => {
    const conditions = target as Conditions;
    const esm = await import(pathToFileURL(join(dir, conditions.import.default)).href);
    const cjs = require(join(dir, conditions.require.default));
    for (const built of [esm, cjs] as Record<string, unknown>[]) {
      for (const [name, value] of Object.entries(built)) {
        if (typeof value !== "function" || !(value.prototype instanceof Error)) continue;
        expect(value.name, name).toBe(name);
        let error: unknown;
        try {
          error = new (value as new (message: string) => Error)("boom");
        } catch {
          continue; // a constructor that wants more than a message: its name was checked above
        }
        expect(inspect(error).split("\n")[0], name).toMatch(new RegExp(`^${name}\\b`));
      }
    }
  });

  // An entry that needs an ESM-only peer (the store contract kit runs under Vitest) is ESM only, and a
  // require() of it fails as Node fails an unexported path, not later inside the peer.
  it.each(esmOnly)("export %s loads as ESM with types, and require() is refused by name", async (key, target) => {
    const conditions = target as Pick<Conditions, "import">;
    expect(existsSync(join(dir, conditions.import.types))).toBe(true);
    const esm = await import(pathToFileURL(join(dir, conditions.import.default)).href);
    expect(Object.keys(esm).length).toBeGreaterThan(0);
    const fromPackage = createRequire(join(dir, "package.json"));
    expect(() => fromPackage(`${manifest.name}${key.slice(1)}`)).toThrow(
      expect.objectContaining({ code: "ERR_PACKAGE_PATH_NOT_EXPORTED" }),
    );
  });
});
