import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { PGLITE_TEMPLATE_ENV, pgliteTemplatePaths } from "@a2a-partner/test-support/pglite-template";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));

// What a user of the published package sees, from a separate Node process: the exports and the
// migrations folder located relative to the built module, for both module systems.
const probe = `const dir = m.defaultMigrationsDir();
const files = require("node:fs").readdirSync(dir).filter((f) => f.endsWith(".sql")).sort();
console.log(JSON.stringify({ exports: Object.keys(m).sort(), dir, files }));`;

async function load(kind: "esm" | "cjs") {
  const args =
    kind === "cjs"
      ? ["-e", `const m = require("@a2a-partner/postgres-store");\n${probe}`]
      : [
          "--input-type=module",
          "-e",
          `import * as m from "@a2a-partner/postgres-store"; import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\n${probe}`,
        ];
  // Run from the package folder: its own name resolves through the exports map to dist/.
  const { stdout } = await run(process.execPath, args, { cwd: packageDir });
  return JSON.parse(stdout) as { exports: string[]; dir: string; files: string[] };
}

describe("the built package", () => {
  it("is built (run `pnpm build` in packages/postgres-store first)", () => {
    expect(existsSync(new URL("../dist/index.js", import.meta.url))).toBe(true);
    expect(existsSync(new URL("../dist/index.cjs", import.meta.url))).toBe(true);
  });

  it("exposes the same API and finds the shipped migrations from ESM and from CJS", async () => {
    const [esm, cjs] = await Promise.all([load("esm"), load("cjs")]);
    expect(esm.exports).toEqual(cjs.exports);
    for (const name of [
      "openDatabase",
      "migrate",
      "createPostgresStores",
      "PostgresTaskStore",
      "PostgresEventLog",
      "PostgresIdempotencyStore",
    ]) {
      expect(esm.exports).toContain(name);
    }
    expect(esm.dir).toBe(cjs.dir);
    expect(esm.dir.startsWith(packageDir)).toBe(true);
    expect(esm.files).toContain("0001_tasks.sql");
    expect(cjs.files).toEqual(esm.files);
  });

  it("runs the embedded database on its worker thread from ESM and from CJS", async () => {
    // The worker's entry is a file of its own in dist/, located from whichever build was loaded. It starts
    // from the run's initdb template when there is one (initdb is not what this tests).
    const query = `const dump = process.env.PGLITE_DUMP && new Blob([(await import("node:fs")).readFileSync(process.env.PGLITE_DUMP)]);
const db = await m.openDatabase({ dataDir: "memory://", ...(dump ? { loadDataDir: dump } : {}) });
const { rows } = await db.query("select 41 + 1 as answer");
await db.close();
console.log(JSON.stringify({ inWorker: db.inWorker, rows }));`;
    const template = process.env[PGLITE_TEMPLATE_ENV];
    const env = { ...process.env, ...(template ? { PGLITE_DUMP: pgliteTemplatePaths(template).dump } : {}) };
    const [esm, cjs] = await Promise.all([
      run(
        process.execPath,
        ["--input-type=module", "-e", `import * as m from "@a2a-partner/postgres-store";\n${query}`],
        { cwd: packageDir, env },
      ),
      run(
        process.execPath,
        ["-e", `const m = require("@a2a-partner/postgres-store");\n(async () => {\n${query}\n})();`],
        { cwd: packageDir, env },
      ),
    ]);
    for (const { stdout } of [esm, cjs]) {
      expect(JSON.parse(stdout)).toEqual({ inWorker: true, rows: [{ answer: 42 }] });
    }
  });

  it("keeps the embedded database's thread light: its file loads Node's built-ins and PGlite, nothing else", () => {
    // a2a-core's index alone is ~9 MB of heap and most of a second on a busy host, for a thread that only
    // answers queries (its maintenance stand-ins run on the owner's thread).
    const worker = readFileSync(new URL("../dist/pglite-worker.js", import.meta.url), "utf8");
    const imported = [...worker.matchAll(/\bfrom\s*"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1] ?? m[2]);
    expect(
      imported.filter((name) => !/^(node:)?[a-z_]+(\/[a-z_]+)?$/.test(name ?? "") && name !== "@electric-sql/pglite"),
    ).toEqual([]);
  });
});
