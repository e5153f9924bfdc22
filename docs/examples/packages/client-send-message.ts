import { A2AClient } from "@a2a-partner/a2a-client";

const client = new A2AClient({
  baseUrl: process.env.A2A_URL ?? "https://robots.example.com",
  token: process.env.A2A_TOKEN,
});
// Waits until the task ends or asks for input; an agent may answer with a message instead of a task.
const result = await client.sendMessage({ text: "Restock aisle 5", storeId: "store-001" });
if (result.kind === "task") console.log(result.task.status.state);
else console.log(result.message.parts);

// A streaming start the agent answers with a message yields one `message` event (no task, nothing to resume).
const stream = client.sendStreamingMessage({ text: "Restock aisle 5", storeId: "store-001" });
for await (const event of stream) {
  if (event.type === "message") console.log(event.message.parts);
}
console.log((await stream.reply) === undefined ? "a task" : "a message");
await client.close();
