// docs/embedding.md's Express section, in a real Express app: one mount serves both bindings, and
// agentCardForRequest takes the headers as Express has them (`req`, whose `get` answers undefined for an
// absent header, or node's `req.headers`) with no conversion written by the embedder.

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type AgentCardInput,
  agentCardForRequest,
  createA2AHandler,
  createInMemoryStores,
} from "@a2a-partner/a2a-core";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";
import express from "express";
import { describe, expect, it } from "vitest";

const input: AgentCardInput = {
  name: "Store robots",
  description: "Robots that carry out store operations",
  endpointUrl: "http://127.0.0.1/api/v1/a2a",
  version: "1.0.0",
  skills: [{ id: "restock", name: "Restock", description: "Restock a shelf", tags: ["store"] }],
};

async function listen(app: express.Express): Promise<{ server: Server; base: string }> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe("the a2a-core handler in an Express app", () => {
  it("answers JSON-RPC and HTTP+JSON from one app.use mount", async () => {
    const handler = createA2AHandler({
      stores: createInMemoryStores(),
      executor: { execute: async () => ({ state: "TASK_STATE_COMPLETED" }) },
      authenticate: async () => ({ ok: true, workspaceId: "5b0b3a4e-8f3c-4d0e-9a57-3c1f2d7e6a10" }),
    });
    const app = express();
    app.use("/api/v1/a2a", toNodeHandler(handler));
    app.use(express.json());
    const { server, base } = await listen(app);
    try {
      const rpc = await fetch(`${base}/api/v1/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "nope" } }),
      });
      expect((await rpc.json()).error.code).toBe(-32001);
      const rest = await fetch(`${base}/api/v1/a2a/tasks/nope`);
      expect(rest.status).toBe(404);
      expect(JSON.stringify(await rest.json())).toMatch(/TASK_NOT_FOUND/);
      const wrongVerb = await fetch(`${base}/api/v1/a2a`);
      expect([wrongVerb.status, wrongVerb.headers.get("allow")]).toEqual([405, "POST"]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await handler.close({ graceMs: 0 });
    }
  });

  it("reads the A2A-Version of Express's req and of node's req.headers", async () => {
    const app = express();
    app.get("/req", (req, res) => void res.json(agentCardForRequest(req, input)));
    app.get("/headers", (req, res) => void res.json(agentCardForRequest(req.headers, input)));
    const { server, base } = await listen(app);
    try {
      for (const path of ["/req", "/headers"]) {
        const v1 = await (await fetch(`${base}${path}`, { headers: { "A2A-Version": "1.0" } })).json();
        expect(v1, path).toHaveProperty("supportedInterfaces.0.protocolVersion", "1.0");
        const v03 = await (await fetch(`${base}${path}`)).json();
        expect(v03, path).toHaveProperty("protocolVersion", "0.3.0");
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
