import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtFingerprint, fingerprint } from "../scripts/build-fingerprint.ts";

const run = promisify(execFile);
const BUILD_PACKAGE = join(import.meta.dirname, "..", "scripts", "build-package.ts");

// `pnpm -r build` runs each package's own `build`; tsup empties dist/ first. The fingerprint that tells
// `pnpm start` the dist/ is current must come out of that build too, or the next start rebuilds (~30 s).
describe("a package's build records what it was built from", () => {
  let pkg = "";
  let bin = "";
  /** A package's build as pnpm runs it, with a stand-in `tsup` that empties dist/ as the real one does. */
  const build = (tsupExit = 0) =>
    run(process.execPath, [BUILD_PACKAGE], {
      cwd: pkg,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, TSUP_EXIT: String(tsupExit) },
    });

  beforeAll(async () => {
    pkg = await mkdtemp(join(tmpdir(), "a2a-build-fingerprint-"));
    bin = join(pkg, "bin");
    await mkdir(join(pkg, "src"), { recursive: true });
    await mkdir(bin);
    await writeFile(join(pkg, "src", "index.ts"), "export const a = 1;\n");
    await writeFile(join(pkg, "package.json"), '{ "name": "fixture" }\n');
    await writeFile(
      join(bin, "tsup"),
      '#!/bin/sh\nrm -rf dist && mkdir dist && echo "export const a = 1;" > dist/index.js\nexit "$TSUP_EXIT"\n',
    );
    await chmod(join(bin, "tsup"), 0o755);
  });
  afterAll(() => rm(pkg, { recursive: true, force: true }));

  it("writes the fingerprint of its inputs into the dist/ tsup just emptied", async () => {
    await build();
    expect(await readFile(join(pkg, "dist", "index.js"), "utf8")).toContain("export const a");
    expect(await builtFingerprint(pkg)).toBe(await fingerprint(pkg));
  });

  it("leaves none when tsup fails, and a changed source no longer matches it", async () => {
    await build();
    await writeFile(join(pkg, "src", "index.ts"), "export const a = 2;\n");
    expect(await builtFingerprint(pkg)).not.toBe(await fingerprint(pkg));
    await expect(build(1)).rejects.toThrow();
    expect(await builtFingerprint(pkg)).toBe("");
  });
});
