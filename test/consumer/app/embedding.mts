// The embedding of docs/embedding.md ("Web-standard runtimes") as Bun, Deno and workerd run it: in-memory
// stores, a two-step executor, a token table, behind `toFetchHandler`. Built on first use, not at import:
// workerd refuses timers and random values in a module's global scope.
import {
  type Authenticate,
  createA2AHandler,
  createInMemoryStores,
  environmentExecutor,
  type FetchHandler,
  toFetchHandler,
} from "@a2a-partner/a2a-core";

export const A2A_PATH = "/api/v1/a2a";
export const TOKEN = "partner-a";

// Each task runs in an Environment its start names (params.metadata.storeId): environmentExecutor checks it.
const executor = environmentExecutor({
  async hasEnvironment(_workspaceId, storeId) {
    return storeId.startsWith("store-");
  },
  async execute({ text, signal, emit }) {
    for (const [step, percent] of [
      [1, 50],
      [2, 100],
    ]) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (signal.aborted) return { state: "TASK_STATE_FAILED" };
      await emit({ kind: "status", message: `step ${step} of "${text}"`, metadata: { step, percent } });
    }
    return { state: "TASK_STATE_COMPLETED", message: "Done" };
  },
});

const authenticate: Authenticate = async (headers) =>
  headers.get("authorization") === `Bearer ${TOKEN}`
    ? { ok: true, workspaceId: "5b0b3a4e-8f3c-4d0e-9a57-3c1f2d7e6a10" }
    : { ok: false, status: 401, message: "Missing or invalid bearer token" };

let fetchHandler: FetchHandler | undefined;

/** The app's fetch: the A2A endpoint (and the HTTP+JSON routes below it), 404 elsewhere. */
export function serve(request: Request): Response | Promise<Response> {
  fetchHandler ??= toFetchHandler(createA2AHandler({ stores: createInMemoryStores(), executor, authenticate }));
  const path = new URL(request.url).pathname;
  if (path === A2A_PATH || path.startsWith(`${A2A_PATH}/`)) return fetchHandler(request);
  return new Response("Not found", { status: 404 });
}
