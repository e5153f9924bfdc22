import { A2AClient } from "@a2a-partner/a2a-client";

const client = new A2AClient({
  baseUrl: process.env.A2A_URL ?? "https://robots.example.com",
  token: process.env.A2A_TOKEN,
});
const page = await client.listTasks({ status: "working", pageSize: 20 });
console.log(
  page.totalSize,
  page.tasks.map((task) => task.id),
  page.nextPageToken,
);
for await (const task of client.listAllTasks({ statusTimestampAfter: new Date(Date.now() - 3_600_000) })) {
  console.log(task.id, task.status.state);
}
