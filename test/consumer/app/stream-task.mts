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
