import { createServer } from "node:http";
import { agentCardForRequest, createA2AHandler, createInMemoryStores, type TaskExecutor } from "@a2a-partner/a2a-core";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";

const PORT = Number(process.env.PORT ?? 8080);
const url = `http://127.0.0.1:${PORT}/a2a`;
const card = {
  ...{ name: "Echo", description: "Asks for a name, then greets", version: "1.0.0" },
  ...{ endpointUrl: url, httpJsonUrl: url },
  skills: [{ id: "greet", name: "Greet", description: "Greets you by name", tags: ["demo"] }],
};

const executor: TaskExecutor = {
  async execute({ message, emit, nextMessage }) {
    const textOf = (m: typeof message) => m.parts.map((part) => part.text ?? "").join(""); // its text parts
    const text = textOf(message);
    if (text !== "hello") return { state: "TASK_STATE_COMPLETED", message: `You said: ${text}` };
    await emit({ kind: "status", state: "TASK_STATE_INPUT_REQUIRED", message: "What is your name?" });
    const name = textOf(await nextMessage()); // the caller's next message, sent with message.taskId
    return { state: "TASK_STATE_COMPLETED", message: `Hello, ${name}!` };
  },
};
const handler = createA2AHandler({
  stores: createInMemoryStores(),
  executor,
  authenticate: async (headers) =>
    headers.get("authorization") === "Bearer secret"
      ? { ok: true, workspaceId: "demo" }
      : { ok: false, status: 401, message: "Bearer secret, please" },
  extendedAgentCard: { ...card, description: "The same, for members" },
});
const a2a = toNodeHandler(handler, { basePath: "/a2a" }); // JSON-RPC at /a2a, HTTP+JSON routes below it
createServer((req, res) => {
  if (req.url?.startsWith("/.well-known/agent-card.json")) {
    const body = JSON.stringify(agentCardForRequest(req.headers, { ...card, extendedAgentCard: true }));
    return res.writeHead(200, { "content-type": "application/json" }).end(body);
  }
  void a2a(req, res);
}).listen(PORT);
