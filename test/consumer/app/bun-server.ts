// docs/embedding.md's Bun server (port 0: any free one), then the typed client on Bun against it.
import { serve, TOKEN } from "./embedding.mts";
import { streamWithFetch } from "./fetch-stream.mts";
import { streamOneTask } from "./stream-task.mts";

const server = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: serve });
const baseUrl = `http://127.0.0.1:${server.port}`;
const { contentType, frames } = await streamWithFetch(fetch, baseUrl, TOKEN);
const client = await streamOneTask(baseUrl);
console.log(JSON.stringify({ runtime: `bun ${Bun.version}`, contentType, frames, client }));
await server.stop(true);
