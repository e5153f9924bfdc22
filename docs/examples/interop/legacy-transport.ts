import { Role } from "@a2a-js/sdk";
import { createAuthenticatingFetchWithRetry } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";

const transport = new LegacyJsonRpcTransport({
  endpoint: `${process.env.A2A_URL ?? "https://robots.example.com"}/api/v1/a2a`,
  fetchImpl: createAuthenticatingFetchWithRetry(fetch, {
    headers: async () => ({ Authorization: `Bearer ${process.env.A2A_TOKEN}` }),
    shouldRetryWithHeaders: async () => undefined,
  }),
});
const start = {
  tenant: "",
  message: {
    messageId: crypto.randomUUID(), // always send one: a retry with it returns the same task
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [
      {
        content: { $case: "text" as const, value: "Restock aisle 5" },
        metadata: undefined,
        filename: "",
        mediaType: "",
      },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: { storeId: "store-001" },
};
for await (const event of transport.sendMessageStream(start)) console.log(event.payload?.$case);
// task, statusUpdate × n, artifactUpdate, statusUpdate (completed), task (completed)
