import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";
import { TOKEN } from "./context.ts";

/** A port nobody listens on right now (for a snippet that takes PORT from the environment). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts a snippet that serves, and resolves once it is ready: its stdout has printed `ready`, or (for a
 * snippet that prints nothing) `ready` is the port it listens on and a connection to it succeeds.
 */
export async function startSnippet(
  file: string,
  env: Record<string, string>,
  ready: RegExp | number,
): Promise<{ child: ChildProcess; output: () => Ran; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [new URL(file, import.meta.url).pathname], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out = collect(child);
  const exited = once(child, "exit").then(([code]) => code as number | null);
  await new Promise<void>((resolve, reject) => {
    exited.then((code) => reject(new Error(`${file} exited (${code}) before it was ready: ${out.stderr}`)));
    if (typeof ready === "number") {
      const attempt = () =>
        connect(ready, "127.0.0.1")
          .once("connect", function (this: Socket) {
            this.destroy();
            resolve();
          })
          .once("error", () => setTimeout(attempt, 50));
      attempt();
    } else {
      child.stdout?.on("data", () => (ready.test(out.stdout) ? resolve() : undefined));
    }
  });
  return { child, output: () => ({ code: child.exitCode, ...out }), exited };
}

function collect(child: ChildProcess): { stdout: string; stderr: string } {
  const out = { stdout: "", stderr: "" };
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out.stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    out.stderr += chunk;
  });
  return out;
}

/** A JSON-RPC task start on `fetch`; the SSE event names of the whole stream. */
export async function streamTask(fetch: (request: Request) => Promise<Response> | Response, url: string) {
  const response = await fetch(
    new Request(url, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "1",
        method: "SendStreamingMessage",
        params: {
          message: { role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text: "restock aisle 5" }] },
          metadata: { storeId: "store-001" },
        },
      }),
    }),
  );
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    events: [...text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]),
  };
}

export const STREAMED = ["task", "update", "update", "finished", "final"];
