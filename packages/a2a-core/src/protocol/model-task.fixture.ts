import type { Task } from "./schemas/a2a.js";

/**
 * For tests of the dialects: a task in the model with every kind of part (text, url, raw, data), a status
 * with a message, an artifact with part metadata, and a history message with every optional field.
 */
export const MODEL_TASK: Task = {
  id: "task-1",
  contextId: "ctx-1",
  status: {
    state: "TASK_STATE_INPUT_REQUIRED",
    message: { role: "ROLE_AGENT", parts: [{ data: { robot: "r-1" } }] },
    timestamp: "2025-01-01T00:00:00.000Z",
  },
  artifacts: [{ artifactId: "a-1", name: "report", parts: [{ text: "done", metadata: { lang: "en" } }] }],
  history: [
    {
      messageId: "m-1",
      contextId: "ctx-1",
      taskId: "task-1",
      role: "ROLE_USER",
      parts: [
        { text: "Restock aisle 5" },
        { url: "https://x.test/a.png", filename: "a.png", mediaType: "image/png" },
        { raw: "AAEC" },
      ],
      metadata: { source: "app" },
    },
  ],
  metadata: { storeId: "store-001", messageId: "m-1" },
};
