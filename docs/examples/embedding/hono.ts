import { fetchHandler } from "./fetch-handler.ts";

// #region snippet
import { Hono } from "hono";

const app = new Hono();
app.post("/api/v1/a2a", (c) => fetchHandler(c.req.raw)); // JSON-RPC
app.all("/api/v1/a2a/*", (c) => fetchHandler(c.req.raw)); // HTTP+JSON routes below it

// #endregion snippet

export { app };
