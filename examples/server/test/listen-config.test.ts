import { EXIT_CODES } from "@a2a-partner/a2a-core/node-runtime";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPgliteStore, runCli, startServerProcess, stopAllServerProcesses } from "./support/server-process.ts";

// A server reachable from other machines must advertise a URL they can use: its agent card's endpoint is
// PUBLIC_URL, and the default (http://localhost:<PORT>) would point every remote partner at itself.
describe("serve with a HOST other machines can reach", () => {
  let store: Awaited<ReturnType<typeof createPgliteStore>>;
  beforeAll(async () => {
    store = await createPgliteStore();
  });
  afterEach(() => stopAllServerProcesses());
  afterAll(async () => {
    await store?.drop();
  });

  it.each(["0.0.0.0", "::"])("refuses HOST=%s without PUBLIC_URL: exit 78 and what to set", async (host) => {
    const run = await runCli(["serve"], { ...store.env, HOST: host, PORT: "0" });
    expect(run.code).toBe(EXIT_CODES.config);
    expect(run.stderr).toContain(`HOST=${host} accepts connections from other machines, but PUBLIC_URL is not set`);
    expect(run.stderr).toMatch(/Set PUBLIC_URL to the URL partners use/);
  });

  it("starts with PUBLIC_URL set, and its card points there", async () => {
    const server = await startServerProcess({ ...store.env, HOST: "0.0.0.0", PUBLIC_URL: "https://a2a.example.com" });
    const port = new URL(server.url).port;
    const card = await (await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`)).json();
    expect(card.url).toBe("https://a2a.example.com/api/v1/a2a");
  });
});
