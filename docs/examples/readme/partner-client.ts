import { A2AClient } from "@a2a-partner/a2a-client";

const client = new A2AClient({ baseUrl: process.env.A2A_URL ?? "http://localhost:8080", token: process.env.A2A_TOKEN });
const stream = client.sendStreamingMessage({ text: "Restock aisle 5", storeId: "store-001" });
for await (const event of stream) {
  if (event.type === "task") console.log("started", event.task.id);
  if (event.type === "update" && event.update.kind === "status-update") console.log(event.update.metadata); // { robot, step, percent, … }
  if (event.type === "update" && event.update.kind === "artifact-update") console.log(event.update.artifact.artifactId);
  if (event.type === "finished") console.log("ended", event.state); // completed | canceled | failed | rejected
}
await client.close();
