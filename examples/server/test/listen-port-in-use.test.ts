import { createServer, type Server } from "node:net";
import { EXIT_CODES } from "@a2a-partner/a2a-core/node-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgliteStore, runCli } from "./support/server-process.ts";

describe("serve on a port another process holds", () => {
  let store: Awaited<ReturnType<typeof createPgliteStore>>;
  let holder: Server;
  let port = 0;
  beforeAll(async () => {
    store = await createPgliteStore();
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", () => resolve()));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    await store?.drop();
  });

  it("exits 1 saying PORT is in use and what to do, not a bare `listen EADDRINUSE`", async () => {
    const run = await runCli(["serve"], { ...store.env, HOST: "127.0.0.1", PORT: String(port) });
    expect(run.code).toBe(EXIT_CODES.failure);
    expect(run.stderr).toContain(`PORT=${port} is already in use on 127.0.0.1`);
    expect(run.stderr).toMatch(/set PORT\s+to a free port/);
  });
});
