import { createServer } from "node:http";
import { createA2AHandler, createInMemoryStores } from "@a2a-partner/a2a-core";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";
import { authenticate, executor } from "../context.ts";

const handler = createA2AHandler({ stores: createInMemoryStores(), executor, authenticate });
const server = createServer(toNodeHandler(handler)).listen(0, "127.0.0.1");

// #region snippet
server.close(); // 1. stop accepting connections
await handler.close({ graceMs: 10_000 }); // 2. end streams, let tasks finish, fail the rest
server.closeAllConnections(); // 3. drop what is left

// #endregion snippet

export { server };
