import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { streamWithFetch } from "./app/fetch-stream.mts";
import { lastJsonLine, runTo } from "./processes.ts";
import { bundleWorker, startWorker } from "./workerd.ts";

// docs/embedding.md's toFetchHandler embedding, from the packed packages, on the other runtimes it names:
// Bun and Deno (each serving a task to a plain fetch and to the typed client running on that runtime) and
// Cloudflare's workerd (a plain fetch, and the typed client on Node). The runtimes run at once.
const app = inject("consumerApp");
const tools = join(import.meta.dirname, "node_modules");
const BUN = join(tools, "bun", "bin", "bun.exe");
const DENO = join(tools, "deno", "deno");
const STREAMED = {
  contentType: "text/event-stream; charset=utf-8",
  frames: ["task", "update", "update", "finished", "final"],
  client: { events: ["task", "update", "update", "finished"], state: "completed", polled: "completed" },
};
const outDirs: string[] = [];
afterAll(() => Promise.all(outDirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function outDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "a2a-consumer-worker-"));
  outDirs.push(dir);
  return dir;
}

describe.concurrent("the packed packages on other runtimes", () => {
  it("Bun: Bun.serve streams a task to fetch and to the typed client running on Bun", async () => {
    const ran = await runTo(BUN, ["bun-server.ts"], { cwd: app });
    expect(lastJsonLine(ran)).toEqual({ runtime: expect.stringMatching(/^bun 1\./), ...STREAMED });
    expect(ran.code).toBe(0);
  });

  it("Deno: Deno.serve streams a task to fetch and to the typed client running on Deno", async () => {
    const permissions = ["--allow-net=127.0.0.1", "--allow-read=.", "--allow-env"];
    const ran = await runTo(DENO, ["run", ...permissions, "deno-server.ts"], { cwd: app });
    expect(lastJsonLine(ran)).toEqual({ runtime: expect.stringMatching(/^deno 2\./), ...STREAMED });
    expect(ran.code).toBe(0);
  });

  it("workerd: a Worker (no nodejs_compat) streams a task to fetch and to the typed client", async () => {
    const dir = await outDir();
    const { url, mf } = await startWorker(await bundleWorker(app, "worker.ts", dir), dir);
    try {
      expect(
        await streamWithFetch(
          (request) => fetch(request, { signal: AbortSignal.timeout(20_000) }),
          url.origin,
          "partner-a",
        ),
      ).toEqual({ contentType: STREAMED.contentType, frames: STREAMED.frames });
      const client = await runTo(process.execPath, ["node-client.mts", url.origin], { cwd: app });
      expect(lastJsonLine(client)).toEqual(STREAMED.client);
    } finally {
      await mf.dispose();
    }
  });

  // What docs/embedding.md says cannot work: postgres-store finds its migrations and PGlite's worker thread
  // next to its own file, and a bundled Worker has no such file. The Worker does not even start.
  it("workerd: a Worker bundling postgres-store fails to start, with the error a user sees", async () => {
    const dir = await outDir();
    const bundle = await bundleWorker(app, "pglite-worker.ts", dir, { nodejsCompat: true, stubs: ["pg"] });
    const started = startWorker(bundle, dir, ["nodejs_compat"]);
    await expect(started).rejects.toThrow(/The Workers runtime failed to start/);
    await expect(started).rejects.toThrow(/Uncaught TypeError: Invalid URL string/);
  });
});
