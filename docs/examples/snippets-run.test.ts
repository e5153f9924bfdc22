import { createHmac } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import { buildAgentCardV1, createA2AHandler, createInMemoryStores, toFetchHandler } from "@a2a-partner/a2a-core";
import { startA2AGrpcServer } from "@a2a-partner/a2a-core/grpc";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { authenticate, executor, secretsOf, TOKEN, WORKSPACE_ID } from "./context.ts";
import { freePort, STREAMED, startSnippet, streamTask } from "./run-helpers.ts";

const AUTH = { headers: { authorization: `Bearer ${TOKEN}` } };

// Runs the snippets of README.md, docs/ and the packages' READMEs (the files snippets.test.ts holds the Markdown to): the whole
// programs as a reader would (`node file.ts`), the fragments in process on what they take as given.

describe("docs/embedding.md's node:http server, and the clients of README.md and docs/interop.md against it", () => {
  let server: Awaited<ReturnType<typeof startSnippet>>;
  let base: string;
  const clientEnv = () => ({ A2A_URL: base, A2A_TOKEN: TOKEN });
  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = await startSnippet("embedding/node-http-server.ts", { PORT: String(port) }, /listening on/);
  });
  afterAll(() => server?.child.kill());

  it.concurrent("streams a task as 'Try it' says, and its card offers both bindings and push", async () => {
    expect(await streamTask(fetch, `${base}/api/v1/a2a`)).toMatchObject({ status: 200, events: STREAMED });
    expect((await fetch(`${base}/api/v1/a2a/tasks?pageSize=1`, AUTH)).status).toBe(200); // HTTP+JSON too
    const card = await (await fetch(`${base}/.well-known/agent-card.json`)).json();
    expect(card.capabilities.pushNotifications).toBe(true);
    expect(JSON.stringify(card.additionalInterfaces ?? card.supportedInterfaces)).toContain("HTTP+JSON");
  });

  // The clients run in this process (their modules are imported, top-level await and all), one after
  // another, with what they print captured: fewer node processes than one each.
  it("README.md's partner client follows a task to its end", async () => {
    const printed = await importPrinting("./readme/partner-client.ts", clientEnv());
    expect(printed[0]).toMatch(/^started [0-9a-f-]{36}$/);
    expect(printed.at(-1)).toBe("ended completed");
  });

  it("docs/interop.md's REST-only SDK client gets the HTTP+JSON transport", async () => {
    expect(await importPrinting("./interop/rest-only.ts", clientEnv())).toEqual(["HTTP+JSON"]);
  });

  it("docs/interop.md's v0.3 SDK transport streams a task to its end", async () => {
    expect(await importPrinting("./interop/legacy-transport.ts", clientEnv())).toEqual([
      "task",
      "statusUpdate",
      "statusUpdate",
      "statusUpdate",
      "task",
    ]);
  });

  it("the a2a-client README's list, push-config, HTTP+JSON and SendMessage clients", async () => {
    const listed = await importPrinting("./packages/client-list-tasks.ts", clientEnv());
    expect(listed[0]).toMatch(/^\d+ \[.*\]/); // totalSize, the page's ids, nextPageToken
    const configs = await importPrinting("./packages/client-push-configs.ts", clientEnv());
    expect(JSON.parse(configs[0] ?? "[]").map((config: { id: string }) => config.id)).toContain("audit");
    expect(await importPrinting("./packages/client-http-json.ts", clientEnv())).toEqual(["completed"]);
    // This agent has no `reply`: SendMessage answers the ended task, the streaming start a task.
    expect(await importPrinting("./packages/client-send-message.ts", clientEnv())).toEqual(["completed", "a task"]);
  });

  it("stops on SIGTERM, cleanly", async () => {
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });
});

describe("README.md's partner client and docs/interop.md's gRPC-only SDK client over gRPC", () => {
  it("reads the card, dials its GRPC interface and follows a task to its end", async () => {
    const handler = createA2AHandler({ stores: createInMemoryStores(), executor, authenticate });
    const grpc = await startA2AGrpcServer({ handler, host: "127.0.0.1" });
    const address = `127.0.0.1:${grpc.port}`;
    const card = buildAgentCardV1({
      name: "Store robots",
      description: "Restocks shelves",
      version: "1.0.0",
      endpointUrl: "http://127.0.0.1/api/v1/a2a",
      grpcUrl: address,
      skills: [],
    });
    const http = createServer((_request, response) => {
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify(card));
    }).listen(0, "127.0.0.1");
    await once(http, "listening");
    try {
      const { port } = http.address() as AddressInfo;
      const printed = await importPrinting("./readme/partner-client-grpc.ts", {
        A2A_URL: `http://127.0.0.1:${port}`,
        A2A_TOKEN: TOKEN,
      });
      expect(printed).toEqual(["task 1", "update 2", "update 3", "finished 4", address]);
      // docs/interop.md's gRPC-only SDK client, from the same card.
      const env = { A2A_URL: `http://127.0.0.1:${port}`, A2A_TOKEN: TOKEN };
      expect(await importPrinting("./interop/grpc-only.ts", env)).toEqual(["GRPC"]);
    } finally {
      http.close();
      await handler.close({ graceMs: 0 });
      await grpc.close({ graceMs: 100 });
    }
  });
});

describe("docs/embedding.md's agent from scratch", () => {
  it("asks for a name, then greets by it on the same task; serves its card and an HTTP+JSON route", async () => {
    const port = await freePort();
    const agent = await startSnippet("embedding/agent-from-scratch.ts", { PORT: String(port) }, port);
    const a2a = `http://127.0.0.1:${port}/a2a`;
    const send = async (message: object) => {
      const response = await fetch(a2a, {
        method: "POST",
        headers: { authorization: "Bearer secret", "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message } }),
      });
      return (await response.json()).result;
    };
    try {
      const asked = await send({ role: "user", messageId: "m-1", parts: [{ kind: "text", text: "hello" }] });
      expect(asked.status.state).toBe("input-required");
      const reply = { role: "user", messageId: "m-2", taskId: asked.id, parts: [{ kind: "text", text: "Ada" }] };
      const greeted = await send(reply);
      expect(greeted.status.state).toBe("completed");
      expect(JSON.stringify(greeted.status.message)).toContain("Hello, Ada!");
      const card = await (await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`)).json();
      expect(card.name).toBe("Echo");
      const tasks = await fetch(`${a2a}/tasks?pageSize=1`, { headers: { authorization: "Bearer secret" } });
      expect(tasks.status).toBe(200); // the HTTP+JSON routes below basePath
    } finally {
      agent.child.kill();
    }
  });
});

describe("docs/embedding.md's executor of the earlier port, wrapped in environmentExecutor", () => {
  it("runs a task in the Environment its start names, and refuses a start that names none", async () => {
    const { handler } = await import("./embedding/environment-migration.ts");
    const send = async (metadata: Record<string, unknown>) => {
      const params = {
        message: { role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text: "go" }] },
      };
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { ...params, metadata } });
      const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
      const response = await toFetchHandler(handler)(new Request("http://test/", { method: "POST", headers, body }));
      return response.json();
    };
    try {
      const { result } = await send({ storeId: "store-001" });
      expect(result.status).toMatchObject({ state: "completed" });
      expect(JSON.stringify(result.status.message)).toContain("go in store-001");
      expect((await send({})).error).toMatchObject({ code: -32602, data: { field: "params.metadata.storeId" } });
    } finally {
      await handler.close({ graceMs: 0 });
    }
  });
});

describe("the a2a-core README's node:http server", () => {
  it("streams a task on JSON-RPC and answers 404 elsewhere", async () => {
    const port = await freePort();
    const server = await startSnippet("packages/core-node-server.ts", { PORT: String(port) }, port);
    try {
      const streamed = await streamTask(fetch, `http://127.0.0.1:${port}/api/v1/a2a`);
      expect(streamed).toMatchObject({ status: 200, events: ["task", "update", "finished", "final"] });
      expect((await fetch(`http://127.0.0.1:${port}/elsewhere`)).status).toBe(404);
    } finally {
      server.child.kill();
    }
  });
});

describe("README.md's push receiver", () => {
  it("answers 204 to a notification signed with the secret, 400 to anything else", async () => {
    const [secret = ""] = await secretsOf("");
    const port = await freePort();
    const receiver = await startSnippet(
      "readme/push-receiver.ts",
      { PORT: String(port), A2A_PUSH_SECRET: secret },
      port,
    );
    try {
      const body = JSON.stringify({
        kind: "status-update",
        taskId: "3b1f7c8e-2f6a-4c1e-9a57-3c1f2d7e6a10",
        contextId: "c-1",
        status: { state: "working", timestamp: new Date().toISOString() },
        final: false,
      });
      const id = "msg_x.2";
      const timestamp = String(Math.floor(Date.now() / 1000));
      const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
      const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
      const headers = { "webhook-id": id, "webhook-timestamp": timestamp, "content-type": "application/json" };
      const url = `http://127.0.0.1:${port}/`;
      const signed = await fetch(url, {
        method: "POST",
        body,
        headers: { ...headers, "webhook-signature": `v1,${signature}` },
      });
      expect(signed.status).toBe(204);
      const forged = await fetch(url, {
        method: "POST",
        body,
        headers: { ...headers, "webhook-signature": "v1,AAAA" },
      });
      expect(forged.status).toBe(400);
      expect(receiver.output().stdout).toBe("msg_x.2 3b1f7c8e-2f6a-4c1e-9a57-3c1f2d7e6a10 status-update\n");
    } finally {
      receiver.child.kill();
    }
  });
});

describe("docs/embedding.md's fragments", () => {
  const A2A = "http://localhost/api/v1/a2a";

  it("Express: the node adapter mounted before the body parser streams a task", async () => {
    const { app } = await import("./embedding/express.ts");
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as AddressInfo;
      expect(await streamTask(fetch, `http://127.0.0.1:${port}/api/v1/a2a`)).toMatchObject({ events: STREAMED });
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/a2a/tasks?pageSize=1`, AUTH)).status).toBe(200);
    } finally {
      server.close();
    }
  });

  it("toFetchHandler, and hono and a Worker on it, stream a task", async () => {
    const { fetchHandler } = await import("./embedding/fetch-handler.ts");
    expect(await streamTask(fetchHandler, A2A)).toMatchObject({ events: STREAMED });
    const { app } = await import("./embedding/hono.ts");
    expect(await streamTask((request) => app.fetch(request), A2A)).toMatchObject({ events: STREAMED });
    expect((await app.fetch(new Request(`${A2A}/tasks?pageSize=1`, AUTH))).status).toBe(200); // HTTP+JSON
    const worker = (await import("./embedding/worker.ts")).default;
    expect(await streamTask(worker.fetch, A2A)).toMatchObject({ events: STREAMED });
    expect((await worker.fetch(new Request("http://localhost/elsewhere"))).status).toBe(404);
  });

  // Bun.serve and Deno.serve run on Bun and Deno in test/consumer; here the fetch each snippet hands them.
  it("Bun and Deno: the fetch the snippets hand to serve() streams a task and answers 404 elsewhere", async () => {
    const served: Array<(request: Request) => Response | Promise<Response>> = [];
    Object.assign(globalThis, {
      Bun: { serve: (options: { fetch: (request: Request) => Response }) => served.push(options.fetch) },
      Deno: { serve: (_options: unknown, handler: (request: Request) => Response) => served.push(handler) },
    });
    await import("./embedding/bun.ts");
    await import("./embedding/deno.ts");
    expect(served).toHaveLength(2);
    for (const serve of served) {
      expect(await streamTask(serve, A2A)).toMatchObject({ events: STREAMED });
      expect((await serve(new Request("http://localhost/elsewhere"))).status).toBe(404);
    }
  });

  it("in-memory stores; push on Node; the graceful shutdown", async () => {
    const { stores } = await import("./embedding/in-memory-stores.ts");
    expect(Object.keys(stores).sort()).toEqual(["events", "idempotency", "push", "tasks"]);
    const { handler } = await import("./embedding/push-node.ts");
    expect(handler.pushNotifications).toBe(true);
    await handler.close({ graceMs: 0 });
    const { server } = await import("./embedding/shutdown.ts");
    expect(server.listening).toBe(false);
  });
});

describe("docs/embedding.md's durable stores and push dispatcher, on PostgreSQL", async () => {
  const available = await postgresAvailable();
  if (!available && process.env.CI === "true") throw new Error(`PostgreSQL is required under CI (${POSTGRES_URL})`);
  const name = `docs_snippets_${process.pid}_${Date.now()}`;
  const admin = () => new pg.Client({ connectionString: POSTGRES_URL });
  beforeAll(async () => {
    if (!available) return;
    const client = admin();
    await client.connect();
    await client.query(`create database ${name}`);
    await client.end();
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    process.env.DATABASE_URL = url.toString();
  });
  afterAll(async () => {
    if (!available) return;
    delete process.env.DATABASE_URL;
    const client = admin();
    await client.connect();
    await client.query(`drop database if exists ${name} with (force)`);
    await client.end();
  });

  it.skipIf(!available)("opens, migrates, serves and closes; the dispatcher starts and stops", async () => {
    await import("./embedding/durable.ts");
    const { db, dispatcher } = await import("./embedding/push-dispatcher.ts");
    const { rows } = await db.query<{ pending: number }>("select count(*)::int as pending from push_deliveries");
    expect(rows[0]?.pending).toBe(0);
    await dispatcher.close(0);
    await db.close();
  });

  it.skipIf(!available)(
    "the packages' READMEs: metrics migrations, query and compaction; the stores; a cache",
    async () => {
      const { db } = await import("./packages/metrics-migrate.ts");
      const { metricsHandler } = await import("./packages/metrics-handler.ts");
      const counts = await metricsHandler(new Request("http://localhost/"), db, WORKSPACE_ID);
      expect(counts.status).toBe(200);
      const refused = await metricsHandler(new Request("http://localhost/?start_timestamp=x"), db, WORKSPACE_ID);
      expect(refused.status).toBe(400);
      await import("./packages/metrics-compaction.ts");
      const { created } = await import("./packages/store-durable.ts"); // stored, watched, appended to, closed
      expect(created).toBe(true);
      const { token } = await import("./packages/store-cache.ts");
      expect(await token("abc")).toEqual({ id: "abc" });
      const fenced = await import("./packages/store-replica-fence.ts"); // no replica here: the primary answers
      expect(await fenced.token("abc")).toEqual({ id: "abc" });
    },
  );

  it.skipIf(!available)("migration sources in order, an application's own last", async () => {
    const { db } = await import("./embedding/migrate-sources.ts");
    const { rows } = await db.query<{ source: string }>(
      "select source from schema_migrations group by source order by min(applied_at), source",
    );
    expect(rows.map((row) => row.source)).toEqual(["a2a-store", "metrics", "my-app"]);
    await db.close();
  });

  it.skipIf(!available)(
    "the dispatch thread runs the worker module beside a handler that dispatches nothing",
    async () => {
      const failed = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        await import("./embedding/database.ts"); // the store's tables, as the fragments take them as given
        const { db, handler, thread } = await import("./embedding/push-dispatch-thread.ts");
        await new Promise((resolve) => setTimeout(resolve, 1_500)); // the worker loads, opens its pool, listens
        await Promise.all([handler.close({ graceMs: 0 }), thread.close(0)]);
        await db.close();
        expect(failed).not.toHaveBeenCalled(); // a module that cannot load or start is logged as an error
      } finally {
        failed.mockRestore();
      }
    },
  );
});

/** Imports a snippet module with `env` set, and returns what it printed with console.log, one line a call. */
async function importPrinting(file: string, env: Record<string, string>): Promise<string[]> {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  try {
    await import(/* @vite-ignore */ file);
    return log.mock.calls.map((args) =>
      args.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg))).join(" "),
    );
  } finally {
    log.mockRestore();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
