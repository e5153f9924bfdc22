import { createServer } from "node:http";
import { createA2AHandler, createInMemoryStores, type TaskExecutor } from "@a2a-partner/a2a-core";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";

const executor: TaskExecutor = {
  async execute({ message, emit }) {
    const text = message.parts.map((part) => part.text ?? "").join("");
    await emit({ kind: "status", message: `working on: ${text}`, metadata: { percent: 50 } });
    return { state: "TASK_STATE_COMPLETED", message: "Done" };
  },
};

const handler = createA2AHandler({
  stores: createInMemoryStores(),
  executor,
  authenticate: async (headers) =>
    headers.get("authorization") === "Bearer partner-a"
      ? { ok: true, workspaceId: "5b0b3a4e-8f3c-4d0e-9a57-3c1f2d7e6a10" } // a UUID: postgres-store refuses other ids
      : { ok: false, status: 401, message: "Missing or invalid bearer token" },
});

const a2a = toNodeHandler(handler);
// JSON-RPC is POST /api/v1/a2a; the HTTP+JSON binding is the routes below it (/api/v1/a2a/message:stream, …).
const server = createServer((req, res) =>
  req.url?.startsWith("/api/v1/a2a") ? void a2a(req, res) : res.writeHead(404).end(),
);
server.listen(Number(process.env.PORT ?? 8080), "127.0.0.1");
