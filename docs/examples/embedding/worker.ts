import { authenticate, executor } from "../context.ts";

// #region snippet
import { createA2AHandler, createInMemoryStores, type FetchHandler, toFetchHandler } from "@a2a-partner/a2a-core";

let fetchHandler: FetchHandler | undefined;
export default {
  fetch(request: Request) {
    // Built on the first request: Workers refuse timers and random values in a module's global scope.
    fetchHandler ??= toFetchHandler(createA2AHandler({ stores: createInMemoryStores(), executor, authenticate }));
    return new URL(request.url).pathname === "/api/v1/a2a"
      ? fetchHandler(request)
      : new Response("Not found", { status: 404 });
  },
};
// #endregion snippet
