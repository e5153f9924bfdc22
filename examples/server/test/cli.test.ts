import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envelope, post } from "./support/rpc.ts";
import {
  createPgliteStore,
  runCli,
  type ServerProcess,
  seedWithCli,
  startServerProcess,
  stopAllServerProcesses,
} from "./support/server-process.ts";

// The CLI against the embedded store while a server owns it: the commands go through the control socket.
describe("CLI with a running embedded server", () => {
  let store: Awaited<ReturnType<typeof createPgliteStore>>;
  let server: ServerProcess;

  beforeAll(async () => {
    store = await createPgliteStore();
    server = await startServerProcess({ ...store.env, ROBOT_STEP_MS: "1" });
  });
  afterAll(async () => {
    await stopAllServerProcesses();
    await store?.drop();
  });

  it("seeds (JSON as the last line), creates and revokes tokens, and refuses a second server", async () => {
    const seeded = await seedWithCli(store.env);
    expect(seeded).toMatchObject({ workspace: { slug: "demo" }, storeId: "store-001" });
    expect(seeded.partnerToken).toMatch(/^a2a_p_/);
    expect(seeded.userToken).toMatch(/^a2a_u_/);

    const created = await runCli(["token", "create", "--workspace", "demo", "--kind", "partner"], store.env);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect((await post(server.a2aUrl, envelope("GetTask", { id: "x" }), token)).status).toBe(200);

    expect((await runCli(["token", "revoke", token], store.env)).code).toBe(0);
    expect((await post(server.a2aUrl, envelope("GetTask", { id: "x" }), token)).status).toBe(401);
    const again = await runCli(["token", "revoke", token], store.env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/no live token/);

    const unknown = await runCli(["token", "create", "--workspace", "nope", "--kind", "partner"], store.env);
    expect(unknown.code).toBe(2);

    const second = await runCli(["serve"], { ...store.env, PORT: "0" });
    expect(second.code).not.toBe(0);
    expect(second.stderr).toMatch(/another server already uses this data directory/);
  });
});
