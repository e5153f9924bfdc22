// The embedding of docs/embedding.md ("Web-standard runtimes") as Bun, Deno and workerd run it: in-memory
// stores and the executor and token check the docs' snippets take as given (docs/examples/context.ts, copied
// in beside this file), behind `toFetchHandler`. Built on first use, not at import: workerd refuses timers and
// random values in a module's global scope.
import { createA2AHandler, createInMemoryStores, type FetchHandler, toFetchHandler } from "@a2a-partner/a2a-core";
import { authenticate, executor } from "./context.ts";

export { TOKEN } from "./context.ts";
export const A2A_PATH = "/api/v1/a2a";

let fetchHandler: FetchHandler | undefined;

/** The app's fetch: the A2A endpoint (and the HTTP+JSON routes below it), 404 elsewhere. */
export function serve(request: Request): Response | Promise<Response> {
  fetchHandler ??= toFetchHandler(createA2AHandler({ stores: createInMemoryStores(), executor, authenticate }));
  const path = new URL(request.url).pathname;
  if (path === A2A_PATH || path.startsWith(`${A2A_PATH}/`)) return fetchHandler(request);
  return new Response("Not found", { status: 404 });
}
