// docs/embedding.md's Bun server (port 0: any free one), then the typed client on Bun against it.
import { serve } from "./embedding.mts";
import { streamOneTask } from "./stream-task.mts";

const server = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: serve });
const baseUrl = `http://127.0.0.1:${server.port}`;
// A plain fetch, as any HTTP client: the stream's frames, in order.
const response = await fetch(`${baseUrl}/api/v1/a2a`, {
  method: "POST",
  headers: { authorization: "Bearer partner-a", "content-type": "application/json" },
  body: JSON.stringify({
    jsonrpc: "2.0",
    id: "1",
    method: "SendStreamingMessage",
    params: {
      message: { role: "user", messageId: "m-1", parts: [{ kind: "text", text: "restock aisle 5" }] },
      metadata: { storeId: "store-001" },
    },
  }),
});
const frames = [...(await response.text()).matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
const client = await streamOneTask(baseUrl);
console.log(
  JSON.stringify({ runtime: `bun ${Bun.version}`, contentType: response.headers.get("content-type"), frames, client }),
);
await server.stop(true);
