import { fetchHandler } from "./fetch-handler.ts";

// #region snippet
Deno.serve({ port: 8080 }, (request) =>
  new URL(request.url).pathname === "/api/v1/a2a" ? fetchHandler(request) : new Response("Not found", { status: 404 }),
);
// #endregion snippet
