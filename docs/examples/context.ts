/**
 * What the doc snippets take as given and do not show (an executor, an authenticate; the handler is in
 * context-handler.ts): the smallest honest versions, so each snippet file compiles and runs as the reader
 * sees it. Nothing here starts a timer or draws a random value at import, so a Worker can import it too (the
 * consumer test's app does, on workerd, Bun and Deno).
 */
import { type Authenticate, environmentExecutor, type TaskExecutor } from "@a2a-partner/a2a-core";

export const TOKEN = "partner-a";
export const WORKSPACE_ID = "5b0b3a4e-8f3c-4d0e-9a57-3c1f2d7e6a10";

/** Two quick steps, then `completed`; Environments are the storeIds starting with `store-`. */
export const executor: TaskExecutor = environmentExecutor({
  async hasEnvironment(_workspaceId, storeId) {
    return storeId.startsWith("store-");
  },
  async execute({ text, signal, emit }) {
    for (const percent of [50, 100]) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (signal.aborted) return { state: "TASK_STATE_FAILED" };
      await emit({ kind: "status", message: `working on "${text}"`, metadata: { percent } });
    }
    return { state: "TASK_STATE_COMPLETED", message: "Done" };
  },
});

export const authenticate: Authenticate = async (headers) =>
  headers.get("authorization") === `Bearer ${TOKEN}`
    ? { ok: true, workspaceId: WORKSPACE_ID }
    : { ok: false, status: 401, message: "Missing or invalid bearer token" };

/** A workspace's push signing secrets, newest first (a fixed one here). */
export async function secretsOf(_workspaceId: string): Promise<string[]> {
  return ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"];
}
