import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

// Every `exports` key of every published package must load from both module systems and ship types.
const root = join(import.meta.dirname, "..");
const packages = readdirSync(join(root, "packages")).map((name) => join(root, "packages", name));
const require = createRequire(import.meta.url);

interface Conditions {
  import: { types: string; default: string };
  require: { types: string; default: string };
}

describe.each(packages)("package %s", (dir) => {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const entries = Object.entries(manifest.exports as Record<string, Conditions | string>).filter(
    ([key]) => key !== "./package.json",
  );

  it("is public, side-effect free, and declares node >=22.12", () => {
    expect(manifest.private).not.toBe(true);
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.engines.node).toBe(">=22.12");
    expect(manifest.publishConfig.access).toBe("public");
  });

  it.each(entries)(
    "export %s loads as ESM and CJS with the same names, and has types for both",
    async (_key, target) => {
      const conditions = target as Conditions;
      for (const file of [conditions.import.types, conditions.require.types])
        expect(existsSync(join(dir, file))).toBe(true);
      const esm = await import(pathToFileURL(join(dir, conditions.import.default)).href);
      const cjs = require(join(dir, conditions.require.default));
      expect(Object.keys(esm).length).toBeGreaterThan(0);
      expect(Object.keys(cjs).sort()).toEqual(Object.keys(esm).sort());
    },
  );
});
