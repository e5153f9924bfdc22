import { authenticate, executor } from "../context.ts";

// #region snippet
import { createA2AHandler, createInMemoryStores, toFetchHandler } from "@a2a-partner/a2a-core";

const handler = createA2AHandler({ stores: createInMemoryStores(), executor, authenticate });
const fetchHandler = toFetchHandler(handler, { basePath: "/api/v1/a2a" }); // (request: Request) => Promise<Response>

// #endregion snippet

export { fetchHandler, handler };
