// docs/embedding.md's Deno server (port 0: any free one), then the typed client on Deno against it.
import { serve, TOKEN } from "./embedding.mts";
import { streamWithFetch } from "./fetch-stream.mts";
import { streamOneTask } from "./stream-task.mts";

const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, serve);
const baseUrl = `http://127.0.0.1:${server.addr.port}`;
const { contentType, frames } = await streamWithFetch(fetch, baseUrl, TOKEN);
const client = await streamOneTask(baseUrl);
console.log(JSON.stringify({ runtime: `deno ${Deno.version.deno}`, contentType, frames, client }));
await server.shutdown();
