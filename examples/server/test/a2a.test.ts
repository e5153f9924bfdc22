import { connect } from "node:net";
import { A2A_LIMITS, AgentCardV1, AgentCardV03, ERROR_CODES } from "@a2a-partner/a2a-core";
import { TaskStatusUpdateEventV03, TaskV03 } from "@a2a-partner/a2a-core/protocol";
import { beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../src/auth/tokens.ts";
import { type Backend, postgresAvailable } from "./support/backends.ts";
import { loggedSeqs } from "./support/event-log.ts";
import { envelope, post, readFrames, rpc, startParams } from "./support/rpc.ts";
import { databasePerSuite, serverPerSuite } from "./support/server-per-suite.ts";
import { startTestServer } from "./support/test-server.ts";

const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

describe.each(backends)("reference server on %s", (backend) => {
  const suite = serverPerSuite(backend);
  let token: string;
  beforeAll(() => {
    token = suite.server.seeded.partnerToken;
  });

  const start = (params = startParams(), method = "SendStreamingMessage", headers: Record<string, string> = {}) =>
    post(suite.server.a2aUrl, envelope(method, params), token, headers);

  it("serves the agent card publicly, pointing at the endpoint with a bearer scheme", async () => {
    const res = await fetch(`${suite.server.url}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    const card = AgentCardV03.parse(await res.json());
    expect(card.url).toBe("http://localhost:8080/api/v1/a2a");
    expect(card.capabilities.streaming).toBe(true);
    expect(card.security).toEqual([{ bearer: [] }]);
    expect(card.skills.length).toBeGreaterThan(0);
    const v1 = AgentCardV1.parse(
      await (
        await fetch(`${suite.server.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })
      ).json(),
    );
    expect(v1.supportedInterfaces[0]?.url).toBe(card.url);
  });

  it("runs a task to finished over SSE, with robot progress, and writes the robots' records", async () => {
    const res = await start(startParams("Restock aisle 5", crypto.randomUUID()));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    const frames = await readFrames(res);
    const events = frames.map((f) => f.event);
    expect(events[0]).toBe("task");
    expect(events.slice(-2)).toEqual(["finished", "final"]);
    expect(events.filter((e) => e === "finished")).toHaveLength(1);
    expect(frames.map((f) => Number(f.id)).slice(0, -1)).toEqual(frames.slice(0, -1).map((_, i) => i + 1));

    const task = TaskV03.parse(frames[0]?.result);
    expect(task.status.state).toBe("working");
    const progress = frames.filter((f) => f.event === "update" && f.result.kind === "status-update");
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress[0]?.result.metadata).toMatchObject({ workflow: "restock-shelf", step: 1 });
    const finished = TaskStatusUpdateEventV03.parse(frames.at(-2)?.result);
    expect(finished).toMatchObject({ final: true, status: { state: "completed" }, taskId: task.id });

    const executions = await suite.database.db.query<{ n: number }>(
      "select count(*)::int as n from workflow_executions where task_id = $1",
      [task.id],
    );
    expect(executions.rows[0]?.n).toBe(1);
    const nodes = await suite.database.db.query<{ n: number }>(
      `select count(*)::int as n from workflow_node_executions n join workflow_executions e on e.id = n.workflow_execution_id
       where e.task_id = $1`,
      [task.id],
    );
    expect(nodes.rows[0]?.n).toBe(progress.length);
  });

  it.each([["SendStreamingMessage"], ["message/stream"]])("accepts %s", async (method) => {
    const frames = await readFrames(await start(startParams(), method));
    expect(frames.at(-2)?.event).toBe("finished");
  });

  it("polls, cancels and reattaches through every method name and alias", async () => {
    const slow = await startTestServer(suite.database.db, { robotStepMs: 300 });
    try {
      const res = await post(slow.a2aUrl, envelope("message/stream", startParams("Count inventory in aisle 7")), token);
      const [first] = await readFrames(res, () => true);
      const id = first?.result.id as string;
      for (const method of ["GetTask", "tasks/get"]) {
        const { body } = await rpc(slow.a2aUrl, token, method, { id });
        expect(body.result.id).toBe(id);
      }
      const resub = await post(slow.a2aUrl, envelope("tasks/resubscribe", { id }), token);
      const resubFirst = await readFrames(resub, () => true);
      expect(resubFirst[0]?.event).toBe("task");
      const canceled = await rpc(slow.a2aUrl, token, "tasks/cancel", { id });
      expect(canceled.body.result.status.state).toBe("canceled");
      const again = await rpc(slow.a2aUrl, token, "CancelTask", { id });
      expect(again.body.error).toMatchObject({ code: ERROR_CODES.TaskNotCancelable, data: { state: "canceled" } });
      const sub = await readFrames(await post(slow.a2aUrl, envelope("SubscribeToTask", { id }), token));
      expect(sub.map((f) => f.event)).toEqual(["task", "finished", "final"]);
      expect(sub[1]?.result.status.state).toBe("canceled");
      // The robots stopped, and the workflow execution records the cancel.
      await expect
        .poll(
          async () =>
            (
              await suite.database.db.query<{ status: string }>(
                "select status from workflow_executions where task_id = $1",
                [id],
              )
            ).rows[0]?.status,
        )
        .toBe("canceled");
    } finally {
      await slow.stop();
    }
  });

  it("returns the original task when a start is retried after the stream dropped, and dispatches once", async () => {
    const messageId = crypto.randomUUID();
    const dropped = await readFrames(await start(startParams("Restock aisle 9", messageId)), (f) => f.event === "task");
    const retry = await readFrames(await start(startParams("Restock aisle 9", messageId)));
    expect(retry[0]?.result.id).toBe(dropped[0]?.result.id);
    expect(retry.at(-2)?.event).toBe("finished");
    const executions = await suite.database.db.query<{ n: number }>(
      "select count(*)::int as n from workflow_executions where task_id = $1",
      [dropped[0]?.result.id],
    );
    expect(executions.rows[0]?.n).toBe(1);
  });

  it("creates one task and one workflow execution for 50 concurrent starts with one messageId", async () => {
    const messageId = crypto.randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => start(startParams("Clean the spill in aisle 3", messageId))),
    );
    const streams = await Promise.all(responses.map((r) => readFrames(r)));
    const ids = new Set(streams.map((s) => s[0]?.result.id));
    expect(ids.size).toBe(1);
    for (const s of streams) expect(s.at(-2)?.event).toBe("finished");
    const executions = await suite.database.db.query<{ n: number }>(
      "select count(*)::int as n from workflow_executions where task_id = $1",
      [[...ids][0]],
    );
    expect(executions.rows[0]?.n).toBe(1);
  });

  it("treats a different messageId, or none, as a new task even with identical text", async () => {
    const ids = new Set<string>();
    for (const messageId of [crypto.randomUUID(), crypto.randomUUID(), undefined, undefined]) {
      const frames = await readFrames(await start(startParams("Restock aisle 1", messageId)));
      ids.add(frames[0]?.result.id);
    }
    expect(ids.size).toBe(4);
  });

  it("replays exactly the missed events after Last-Event-ID: every event once across two connections", async () => {
    const slow = await startTestServer(suite.database.db, { robotStepMs: 150 });
    try {
      const messageId = crypto.randomUUID();
      const res = await post(
        slow.a2aUrl,
        envelope("SendStreamingMessage", startParams("Restock aisle 5", messageId)),
        token,
      );
      const firstPart = await readFrames(res, (f) => f.event === "update");
      const lastSeen = firstPart.at(-1)?.id as string;
      await new Promise((r) => setTimeout(r, 400)); // events happen while nobody listens
      const resumed = await readFrames(
        await post(slow.a2aUrl, envelope("SubscribeToTask", { id: firstPart[0]?.result.id }), token, {
          "Last-Event-ID": lastSeen,
        }),
      );
      expect(resumed[0]?.event).toBe("task");
      const delivered = [...firstPart, ...resumed.slice(1)].filter((f) => f.event !== "final").map((f) => Number(f.id));
      const all = await loggedSeqs(suite.database.db, firstPart[0]?.result.id as string);
      expect(delivered).toEqual(all);
      expect(resumed.at(-2)?.event).toBe("finished");
    } finally {
      await slow.stop();
    }
  });

  it("answers 401 (with WWW-Authenticate) without or with a bad token, 403 for a user session token", async () => {
    for (const bad of [null, "a2a_p_not-a-real-token"]) {
      const res = await post(suite.server.a2aUrl, envelope("GetTask", { id: "x" }), bad);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect((await res.json()).id).toBeNull();
    }
    const res = await post(
      suite.server.a2aUrl,
      envelope("SendStreamingMessage", startParams()),
      suite.server.seeded.userToken,
    );
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
  });

  it("hides a task from another workspace's token: -32001 for get, cancel and subscribe", async () => {
    const slow = await startTestServer(suite.database.db, { robotStepMs: 200 });
    try {
      const [first] = await readFrames(
        await post(slow.a2aUrl, envelope("SendStreamingMessage", startParams()), token),
        () => true,
      );
      const id = first?.result.id;
      for (const method of ["GetTask", "CancelTask", "SubscribeToTask"]) {
        const res = await post(slow.a2aUrl, envelope(method, { id }), slow.otherPartnerToken);
        expect((await res.json()).error.code).toBe(ERROR_CODES.TaskNotFound);
      }
      const { body } = await rpc(slow.a2aUrl, token, "GetTask", { id });
      expect(body.result.status.state).toBe("working");
    } finally {
      await slow.stop();
    }
  });

  it.each([
    ["parse error", "{not json", ERROR_CODES.ParseError],
    ["invalid request", { jsonrpc: "2.0", method: "GetTask" }, ERROR_CODES.InvalidRequest],
    ["method not found", envelope("tasks/archive", {}), ERROR_CODES.MethodNotFound],
    ["invalid params", envelope("GetTask", { id: 42 }), ERROR_CODES.InvalidParams],
    [
      "unknown storeId",
      envelope("SendStreamingMessage", startParams("x", undefined, "store-999")),
      ERROR_CODES.InvalidParams,
    ],
    ["task not found (uuid)", envelope("GetTask", { id: crypto.randomUUID() }), ERROR_CODES.TaskNotFound],
    ["task not found (not a uuid)", envelope("GetTask", { id: "nope" }), ERROR_CODES.TaskNotFound],
    ["SendMessage unsupported", envelope("SendMessage", startParams()), ERROR_CODES.UnsupportedOperation],
    ["GetExtendedAgentCard unsupported", envelope("GetExtendedAgentCard", {}), ERROR_CODES.UnsupportedOperation],
  ])("answers %s with its JSON-RPC code", async (_name, body, code) => {
    const res = await post(suite.server.a2aUrl, body, token);
    expect(res.status).toBe(200);
    expect((await res.json()).error.code).toBe(code);
  });

  it("answers 413 with a JSON-RPC error for a body over A2A_LIMITS.maxBodyBytes", async () => {
    const res = await post(
      suite.server.a2aUrl,
      envelope("GetTask", { id: "x".repeat(A2A_LIMITS.maxBodyBytes) }),
      token,
    );
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe(ERROR_CODES.InvalidRequest);
  });

  it("reports health", async () => {
    expect(await (await fetch(`${suite.server.url}/healthz`)).json()).toEqual({ status: "ok" });
  });
});

describe("hardening (PGlite)", () => {
  const suite = databasePerSuite("pglite");

  it("limits each token's rate with 429 + Retry-After and a JSON-RPC body; other tokens go on", async () => {
    const server = await startTestServer(suite.database.db, { rateLimitPerSecond: 2 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        statuses.push((await post(server.a2aUrl, envelope("GetTask", { id: "x" }), server.seeded.partnerToken)).status);
      }
      expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
      const limited = await post(server.a2aUrl, envelope("GetTask", { id: "x" }), server.seeded.partnerToken);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect((await limited.json()).error).toMatchObject({
        code: ERROR_CODES.InvalidRequest,
        data: { httpStatus: 429 },
      });
      const other = await post(server.a2aUrl, envelope("GetTask", { id: "x" }), server.otherPartnerToken);
      expect(other.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("honours a token revocation as soon as its notification arrives, not after the cache's minute", async () => {
    const server = await startTestServer(suite.database.db);
    try {
      const token = server.seeded.partnerToken;
      expect((await post(server.a2aUrl, envelope("GetTask", { id: "x" }), token)).status).toBe(200);
      await suite.database.db.query("update api_tokens set revoked_at = now() where token_hash = $1", [
        hashToken(token),
      ]);
      // The notification of the change travels apart from the statement's answer: allow it milliseconds.
      await expect
        .poll(async () => (await post(server.a2aUrl, envelope("GetTask", { id: "x" }), token)).status, {
          timeout: 5_000,
          interval: 20,
        })
        .toBe(401);
    } finally {
      await server.stop();
    }
  });

  it("sends security headers and never a stack trace or SQL in an error", async () => {
    const server = await startTestServer(suite.database.db);
    try {
      const res = await post(server.a2aUrl, envelope("GetTask", { id: "x" }), server.seeded.partnerToken);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-powered-by")).toBeNull();
      const broken = await fetch(`${server.url}/nowhere`);
      expect(broken.status).toBe(404);
      expect(await broken.text()).not.toMatch(/ at |Error:/);
    } finally {
      await server.stop();
    }
  });
});

describe("timeouts (PGlite)", () => {
  const suite = databasePerSuite("pglite");

  it("never cuts a live SSE stream, however long it outlives the request timeout", async () => {
    const server = await startTestServer(suite.database.db, { requestTimeoutMs: 300, robotStepMs: 250 });
    try {
      const started = Date.now();
      const frames = await readFrames(
        await post(server.a2aUrl, envelope("SendStreamingMessage", startParams()), server.seeded.partnerToken),
      );
      expect(Date.now() - started).toBeGreaterThan(1000);
      expect(frames.at(-2)?.event).toBe("finished");
    } finally {
      await server.stop();
    }
  });

  it("drops a client that never finishes sending its request; one without a token is refused at once", async () => {
    const server = await startTestServer(suite.database.db, { requestTimeoutMs: 300 });
    try {
      const { port } = new URL(server.url);
      const send = (authorization: string) => {
        const socket = connect(Number(port), "127.0.0.1");
        socket.write(
          `POST /api/v1/a2a HTTP/1.1\r\nHost: x\r\n${authorization}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
        );
        const startedAt = performance.now();
        return new Promise<{ text: string; ms: number }>((resolve) => {
          let text = "";
          socket.on("data", (d) => {
            text += d.toString();
          });
          socket.on("close", () => resolve({ text, ms: performance.now() - startedAt }));
        });
      };
      // A partner's request whose body never completes: cut by the request timeout.
      expect((await send(`Authorization: Bearer ${server.seeded.partnerToken}\r\n`)).text).toMatch(/^HTTP\/1\.1 408/);
      // No token: refused from the headers, without waiting for the body.
      const anonymous = await send("");
      expect(anonymous.text).toMatch(/^HTTP\/1\.1 401/);
      expect(anonymous.ms).toBeLessThan(300);
    } finally {
      await server.stop();
    }
  });
});
