import { A2AClient } from "@a2a-partner/a2a-client";

const client = new A2AClient({
  baseUrl: process.env.A2A_URL ?? "https://robots.example.com",
  token: process.env.A2A_TOKEN,
  binding: "http+json",
});
// POST …/api/v1/a2a/message:stream, GET …/tasks/{id}, GET …/tasks, POST …/tasks/{id}:cancel, POST …/tasks/{id}:subscribe
const stream = client.sendStreamingMessage({ text: "Restock aisle 5", storeId: "store-001" });
console.log((await stream.finished).state);
await client.close();
