import { createServer } from "node:http";
import {
  type Authenticate,
  agentCardForRequest,
  createA2AHandler,
  createInMemoryStores,
  environmentExecutor,
} from "@a2a-partner/a2a-core";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";

const PORT = Number(process.env.PORT ?? 8080);
const PUBLIC_URL = `http://127.0.0.1:${PORT}`; // the origin clients use: the card's endpoint must match it
const A2A_PATH = "/api/v1/a2a";

// The work behind a task. It runs in the background: a client that disconnects does not stop it. Each task
// runs in an Environment its start names (params.metadata.storeId): environmentExecutor checks it.
const executor = environmentExecutor({
  async hasEnvironment(_workspaceId, storeId) {
    return storeId.startsWith("store-");
  },
  async execute({ text, signal, emit }) {
    for (const [step, percent] of [
      [1, 50],
      [2, 100],
    ]) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (signal.aborted) return { state: "TASK_STATE_FAILED" }; // canceled: the return value is ignored
      await emit({ kind: "status", message: `step ${step} of "${text}"`, metadata: { step, percent } });
    }
    return { state: "TASK_STATE_COMPLETED", message: "Done" };
  },
});

// Partner token → workspace. A real server looks hashed tokens up in its database. Workspace ids are UUIDs
// here because the PostgreSQL stores (see Stores) require them; the in-memory ones take any string.
const partnerTokens = new Map([["partner-a", "5b0b3a4e-8f3c-4d0e-9a57-3c1f2d7e6a10"]]);
const authenticate: Authenticate = async (headers) => {
  const token = /^Bearer (.+)$/.exec(headers.get("authorization") ?? "")?.[1];
  const workspaceId = token ? partnerTokens.get(token) : undefined;
  if (!workspaceId) return { ok: false, status: 401, message: "Missing or invalid bearer token" };
  return { ok: true, workspaceId };
};

const handler = createA2AHandler({ stores: createInMemoryStores(), executor, authenticate });
const a2a = toNodeHandler(handler, { basePath: A2A_PATH }); // the routes are matched below A2A_PATH

const card = {
  name: "Store Operations Robots",
  description: "Send a store task in plain language; robots carry it out.",
  endpointUrl: `${PUBLIC_URL}${A2A_PATH}`, // JSON-RPC: POST to the path itself
  httpJsonUrl: `${PUBLIC_URL}${A2A_PATH}`, // HTTP+JSON: the routes below it (…/message:stream, …/tasks/{id})
  pushNotifications: handler.pushNotifications, // the in-memory stores take push configs
  version: "0.1.0",
  skills: [{ id: "restock-shelf", name: "Restock a shelf", description: "Restock a shelf or aisle.", tags: ["store"] }],
};

const server = createServer((req, res) => {
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  if (path === A2A_PATH || path.startsWith(`${A2A_PATH}/`)) return void a2a(req, res); // both bindings
  if (path === "/.well-known/agent-card.json" && req.method === "GET") {
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(JSON.stringify(agentCardForRequest(req.headers, card)));
  }
  res.writeHead(404).end();
});
// node's requestTimeout (300 s by default) bounds receiving a request, not the response, so SSE streams
// are not cut by it: keep it, it is the slow-loris guard.
server.listen(PORT, "127.0.0.1", () => console.log(`listening on ${PUBLIC_URL}`));

// Graceful shutdown: stop accepting, end open streams cleanly, give running tasks 10 s, then fail the rest.
process.once("SIGTERM", async () => {
  server.close();
  server.closeIdleConnections();
  await handler.close({ graceMs: 10_000 });
  server.closeAllConnections();
});
