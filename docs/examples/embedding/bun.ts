import { fetchHandler } from "./fetch-handler.ts";

// #region snippet
Bun.serve({
  port: 8080,
  idleTimeout: 0, // Bun closes idle connections after 10 s by default; keep-alives come every 15 s
  fetch(request) {
    if (new URL(request.url).pathname === "/api/v1/a2a") return fetchHandler(request);
    return new Response("Not found", { status: 404 });
  },
});
// #endregion snippet
