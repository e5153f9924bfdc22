import { afterEach, describe, expect, it } from "vitest";
import { task } from "../../../test/support/fixtures.js";
import { type ScriptedServer, startScriptedServer, writeJson } from "../../../test/support/http-server.js";
import { A2AClient } from "../../client.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const answerTask = () =>
  startScriptedServer((_, request, res) =>
    writeJson(res, 200, { jsonrpc: "2.0", id: "1", result: task(String(request.params.id), "working") }),
  );

async function until(condition: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("connection pooling", () => {
  it("reuses keep-alive connections for consecutive calls and releases them on close()", async () => {
    server = await answerTask();
    const client = new A2AClient({ baseUrl: server.baseUrl, token: "t" });
    const ids = Array.from({ length: 10 }, (_, i) => `task-${i}`);
    for (const id of ids) expect((await client.getTask(id)).id).toBe(id);
    // undici may open a second socket when a call starts before the previous one is back in the pool.
    expect(server.connections()).toBeLessThanOrEqual(2);
    expect(server.openConnections()).toBeGreaterThan(0);
    // The pool is the client's own undici Agent: closing the client closes its sockets.
    await client.close();
    await until(() => server?.openConnections() === 0);
  });

  it("uses a dispatcher the caller passes", async () => {
    server = await answerTask();
    const used: string[] = [];
    const { Agent, Dispatcher1Wrapper } = await import("undici");
    const agent = new Agent();
    const dispatcher = new Dispatcher1Wrapper({
      dispatch: (options: Parameters<typeof agent.dispatch>[0], handler: Parameters<typeof agent.dispatch>[1]) => {
        used.push(String(options.path));
        return agent.dispatch(options, handler);
      },
    } as unknown as typeof agent);
    const client = new A2AClient({ baseUrl: server.baseUrl, token: "t", dispatcher });
    await client.getTask("a");
    expect(used).toEqual(["/api/v1/a2a"]);
    await agent.close();
  });
});
