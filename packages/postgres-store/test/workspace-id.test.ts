import { randomUUID } from "node:crypto";
import { createA2AHandler, type Logger, type TaskExecutor } from "@a2a-partner/a2a-core";
import { postgresAvailable } from "@a2a-partner/test-support/postgres";
import { describe, expect, it } from "vitest";
import { migratedStoresPerSuite } from "./support/migrated-backend.js";

const kinds = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])] as const;

const executor: TaskExecutor = { execute: async () => ({ state: "TASK_STATE_COMPLETED", message: "done" }) };

function start(messageId: string): Request {
  return new Request("http://a2a.test/a2a", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendStreamingMessage",
      params: {
        message: { role: "user", messageId, parts: [{ kind: "text", text: "restock aisle 5" }] },
        metadata: { storeId: "store-001" },
      },
    }),
  });
}

// The a2a-core README's own example returns `workspaceId: "ws-a"`; with these stores that is the
// embedder's misconfiguration, refused at once with the field named, not a 503 "retry" on every start.
describe.each(kinds)("a workspace id from authenticate that is not a UUID (%s)", (kind) => {
  const suite = migratedStoresPerSuite(kind, "workspace_id");
  const logged: string[] = [];
  const logger: Logger = { info: () => {}, warn: () => {}, error: (_obj, msg) => void logged.push(msg ?? "") };
  const handlerFor = (workspaceId: string) =>
    createA2AHandler({
      stores: suite.stores,
      executor,
      logger,
      authenticate: async () => ({ ok: true, workspaceId }),
      basePath: "/a2a",
    });

  it("answers a JSON-RPC start with a non-retryable -32603 that names workspaceId, and logs why", async () => {
    const handler = handlerFor("ws-a");
    const response = await handler.fetch(start(randomUUID()));
    expect(response.status).toBe(200);
    expect(response.headers.get("retry-after")).toBeNull();
    const body = (await response.json()) as { error: { code: number; message: string; data: unknown } };
    expect(body.error.code).toBe(-32603);
    expect(body.error.message).toMatch(/workspaceId .*must be a UUID/);
    expect(body.error.data).toEqual({ field: "workspaceId" });
    expect(logged.at(-1)).toMatch(/authenticate returned a workspaceId/);
    await handler.close({ graceMs: 0 });
  });

  it("answers HTTP+JSON with 500 (no Retry-After), and a read is refused too, not an empty answer", async () => {
    const handler = handlerFor("ws-a");
    const response = await handler.fetch(new Request(`http://a2a.test/a2a/tasks?pageSize=5`));
    expect(response.status).toBe(500);
    expect(response.headers.get("retry-after")).toBeNull();
    expect(JSON.stringify(await response.json())).toMatch(/workspaceId .*must be a UUID/);
    await handler.close({ graceMs: 0 });
  });

  it("starts the task when the id is a UUID", async () => {
    const handler = handlerFor(randomUUID());
    const response = await handler.fetch(start(randomUUID()));
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/event: final/);
    await handler.close({ graceMs: 0 });
  });
});
