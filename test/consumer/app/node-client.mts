// `node node-client.mts <baseUrl>`: the typed client on Node against a server elsewhere (the docs' node:http
// embedding, workerd); one JSON line on stdout.
import { streamOneTask } from "./stream-task.mts";

const baseUrl = process.argv[2];
if (!baseUrl) throw new Error("usage: node node-client.mts <baseUrl>");
console.log(JSON.stringify(await streamOneTask(baseUrl)));
