import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { ROOT } from "../../scripts/packages/public-packages.ts";
import { freePort, lastJsonLine, runTo, startUntil } from "./processes.ts";

// The four packages as an npm user gets them (packed tarballs installed by npm outside the workspace:
// global-setup.ts), on Node: every entry from ESM and CJS, TypeScript under node16 and bundler
// resolution, the docs' node:http embedding with the typed client, PGlite, the store contract kit.
const app = inject("consumerApp");
const node = (args: string[], timeoutMs?: number) => runTo(process.execPath, args, { cwd: app, timeoutMs });
const PACKAGES = ["a2a-core", "a2a-client", "postgres-store", "metrics-core"].map((name) => `@a2a-partner/${name}`);

type Conditions = { import?: unknown; require?: unknown; default?: unknown };
const entries = PACKAGES.flatMap((name) => {
  const manifest = JSON.parse(readFileSync(join(app, "node_modules", name, "package.json"), "utf8"));
  return Object.entries(manifest.exports as Record<string, Conditions | string>)
    .filter(([key]) => key !== "./package.json")
    .map(([key, target]) => ({
      specifier: `${name}${key.slice(1)}`,
      esmOnly: typeof target === "object" && target.require === undefined && target.default === undefined,
    }));
});

describe.concurrent("the packed packages on Node", () => {
  it("installs every entry the packages export (a2a-core's ., /node and /testing among them)", () => {
    expect(entries.map((entry) => entry.specifier)).toEqual(
      expect.arrayContaining([
        "@a2a-partner/a2a-core/node",
        "@a2a-partner/a2a-core/testing",
        "@a2a-partner/a2a-client",
      ]),
    );
  });

  it("loads every dual entry from ESM and from CJS, with the same export names", async () => {
    const dual = entries.filter((entry) => !entry.esmOnly).map((entry) => entry.specifier);
    const esm = await node([
      "--input-type=module",
      "-e",
      `const out = {}; for (const s of ${JSON.stringify(dual)}) out[s] = Object.keys(await import(s)).sort(); console.log(JSON.stringify(out));`,
    ]);
    const cjs = await node([
      "--input-type=commonjs",
      "-e",
      `const out = {}; for (const s of ${JSON.stringify(dual)}) out[s] = Object.keys(require(s)).sort(); console.log(JSON.stringify(out));`,
    ]);
    const fromEsm = lastJsonLine(esm) as Record<string, string[]>;
    expect(lastJsonLine(cjs)).toEqual(fromEsm);
    for (const specifier of dual) expect(fromEsm[specifier]?.length, specifier).toBeGreaterThan(0);
  });

  it("refuses require() of an ESM-only entry by name, as Node refuses an unexported path", async () => {
    const esmOnly = entries.filter((entry) => entry.esmOnly).map((entry) => entry.specifier);
    expect(esmOnly).toEqual(["@a2a-partner/a2a-core/testing"]);
    const cjs = await node([
      "-e",
      `try { require(${JSON.stringify(esmOnly[0])}); console.log("{}"); } catch (e) { console.log(JSON.stringify({ code: e.code })); }`,
    ]);
    expect(lastJsonLine(cjs)).toEqual({ code: "ERR_PACKAGE_PATH_NOT_EXPORTED" });
  });

  // skipLibCheck off (node16) checks every declaration file the program reads: the slowest test here.
  it.each(["node16", "bundler"])("type-checks a TypeScript consumer under moduleResolution %s", async (mode) => {
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const checked = await node([tsc, "-p", `tsconfig.${mode}.json`], 170_000);
    expect(checked.stdout + checked.stderr).toBe("");
    expect(checked.code).toBe(0);
  });

  it("runs the typed ESM consumer", async () => {
    const ran = await node(["consumer.mts"]);
    expect(lastJsonLine(ran)).toEqual({
      unauthenticated: 401,
      taskNotFound: true,
      clientErrorGuard: false,
      window: "2026-01-01T00:00:00.000Z",
      windowError: false,
      functions: true,
      migrationSources: ["a2a-store", "metrics"],
    });
  });

  it("serves docs/embedding.md's node:http server to the typed client, then shuts down on SIGTERM", async () => {
    await writeFile(join(app, "docs-server.mts"), embeddingExample());
    const port = await freePort();
    const server = await startUntil(process.execPath, ["docs-server.mts"], /listening on/, {
      cwd: app,
      env: { ...process.env, PORT: String(port) },
    });
    try {
      const baseUrl = `http://127.0.0.1:${port}`;
      const card = await (await fetch(`${baseUrl}/.well-known/agent-card.json`)).json();
      expect(card.url).toBe(`${baseUrl}/api/v1/a2a`);
      const client = await node(["node-client.mts", baseUrl]);
      expect(lastJsonLine(client)).toEqual({
        events: ["task", "update", "update", "finished"],
        state: "completed",
        polled: "completed",
      });
    } finally {
      server.child.kill("SIGTERM");
    }
    expect(await server.exited).toBe(0);
  });

  it("stores a task in PGlite through postgres-store, its worker thread and migrations found in the package", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "a2a-consumer-pglite-"));
    try {
      const ran = await node(["pglite.mts", dataDir], 170_000);
      expect(lastJsonLine(ran)).toEqual({
        inWorker: true,
        migrated: true,
        frames: ["task", "update", "finished", "final"],
        storedEvents: 3,
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("runs docs/embedding.md's store contract test (@a2a-partner/a2a-core/testing) under the app's own Vitest", async () => {
    const vitest = join(app, "node_modules", "vitest", "vitest.mjs");
    const ran = await node([vitest, "run", "store-contract.test.ts", "--root", app], 120_000);
    expect(stripVTControlCharacters(ran.stdout)).toMatch(/Tests\s+\d+ passed/);
    expect(ran.code).toBe(0);
  });
});

/** The first TypeScript block under docs/embedding.md's "Plain `node:http`", exactly as a reader copies it. */
function embeddingExample(): string {
  const doc = readFileSync(join(ROOT, "docs", "embedding.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Plain `node:http`"));
  const code = /```ts[^\n]*\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code?.includes("toNodeHandler")) throw new Error("docs/embedding.md has no node:http example");
  return code;
}
