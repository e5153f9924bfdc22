import { A2AClient } from "@a2a-partner/a2a-client";

const client = new A2AClient({
  baseUrl: process.env.A2A_URL ?? "https://robots.example.com",
  token: process.env.A2A_TOKEN,
});
const hook = { url: "https://hooks.partner.example/a2a", token: "restock-42" };
const stream = client.sendStreamingMessage({
  text: "Restock aisle 5",
  storeId: "store-001",
  pushNotificationConfig: hook,
});
const task = await stream.task;
stream.abort(); // the events keep coming to the hook
await client.createTaskPushNotificationConfig(task.id, { id: "audit", url: "https://audit.partner.example/a2a" });
console.log(await client.listTaskPushNotificationConfigs(task.id)); // [{ taskId, id: task.id, url, token }, { …, id: "audit" }]
await client.deleteTaskPushNotificationConfig(task.id, "audit");
