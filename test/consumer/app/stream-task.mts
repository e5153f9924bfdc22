// The typed client as an application uses it: stream one task to its end, then poll it. Runs on Node, Bun
// and Deno; the summary is what the tests compare.
import { A2AClient } from "@a2a-partner/a2a-client";
import { TOKEN } from "./embedding.mts";

export interface StreamedTask {
  events: string[];
  state: string;
  polled: string;
}

export async function streamOneTask(baseUrl: string): Promise<StreamedTask> {
  const client = new A2AClient({ baseUrl, token: TOKEN });
  try {
    const events: string[] = [];
    const stream = client.sendStreamingMessage({ text: "Restock aisle 5", storeId: "store-001" });
    for await (const event of stream) events.push(event.type);
    const finished = await stream.finished;
    const polled = await client.getTask((await stream.task).id);
    return { events, state: finished.state, polled: polled.status.state };
  } finally {
    await client.close();
  }
}

/** What a plain `fetch` (any HTTP client) sees of a streamed start: the content type, then each frame's event name in order. */
export interface FetchedStream {
  contentType: string | null;
  frames: string[];
}

/** A streamed start with `fetch` itself, as an application without the typed client sends it. */
export async function streamWithFetch(
  send: (request: Request) => Promise<Response>,
  baseUrl: string,
): Promise<FetchedStream> {
  const response = await send(
    new Request(`${baseUrl}/api/v1/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "1",
        method: "SendStreamingMessage",
        params: {
          message: { role: "user", messageId: "m-1", parts: [{ kind: "text", text: "restock aisle 5" }] },
          metadata: { storeId: "store-001" },
        },
      }),
    }),
  );
  const frames = [...(await response.text()).matchAll(/^event: (\w+)$/gm)].map((match) => match[1] ?? "");
  return { contentType: response.headers.get("content-type"), frames };
}
