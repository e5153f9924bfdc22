import { getEventListeners } from "node:events";
import { http } from "msw";
import { describe, expect, it } from "vitest";
import {
  agentCard,
  BASE_URL,
  ENDPOINT,
  fakeFetch,
  finished,
  frame,
  jsonRpcErrorResponse,
  progress,
  splitBytes,
  sseResponse,
  task,
  taskFrames,
} from "../test/support/fixtures.js";
import { testClient as client, mockEndpoint } from "../test/support/mock-endpoint.js";
import { A2AClient } from "./client.js";
import { APIConnectionError, APIUserAbortError, InvalidParamsError, TaskNotFoundError } from "./index.js";
import type { A2AClientOptions } from "./options.js";
import type { TaskStreamEvent } from "./stream/events.js";

const { server, script } = mockEndpoint();

async function collect(stream: AsyncIterable<TaskStreamEvent>): Promise<TaskStreamEvent[]> {
  const events: TaskStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const ids = (events: TaskStreamEvent[]) => events.map((e) => `${e.type}:${e.eventId}`);

describe("sendStreamingMessage", () => {
  it("sends the start request the contract describes and yields task, updates and finished", async () => {
    const seen = script(() => sseResponse(taskFrames("task-1", 2)));
    const { client: c } = client();
    const stream = c.sendStreamingMessage({ text: "Restock aisle 5", storeId: "store-001" });
    const events = await collect(stream);

    expect(ids(events)).toEqual(["task:1", "update:2", "update:3", "finished:4"]);
    const [request] = seen;
    expect(request?.method).toBe("SendStreamingMessage");
    expect(request?.headers.get("authorization")).toBe("Bearer a2a_p_secret");
    expect(request?.headers.get("accept")).toBe("text/event-stream");
    expect(request?.headers.get("content-type")).toBe("application/json");
    expect(request?.headers.has("last-event-id")).toBe(false);
    const message = request?.params.message as Record<string, unknown>;
    expect(message).toMatchObject({
      kind: "message",
      role: "user",
      parts: [{ kind: "text", text: "Restock aisle 5" }],
    });
    // A messageId is always sent, so that a retry can never start a second task.
    expect(typeof message.messageId).toBe("string");
    expect(message.messageId).toBe(stream.messageId);
    expect(request?.params.metadata).toEqual({ storeId: "store-001" });
  });

  it("starts a task without a storeId: no metadata is sent unless given", async () => {
    const seen = script(() => sseResponse(taskFrames("task-2", 1)));
    const { client: c } = client();
    await collect(c.sendStreamingMessage({ text: "Restock aisle 5" }));
    await collect(c.sendStreamingMessage({ text: "Restock aisle 5", metadata: { priority: "high" } }));
    expect(seen[0]?.params).not.toHaveProperty("metadata");
    expect(seen[1]?.params.metadata).toEqual({ priority: "high" });
  });

  it("keeps a given messageId and exposes the task and finished promises", async () => {
    const seen = script(() => sseResponse(taskFrames("task-7", 1, "failed")));
    const { client: c } = client();
    const stream = c.sendStreamingMessage({ text: "Restock", storeId: "store-001", messageId: "order-42" });
    const [snapshot, end] = await Promise.all([stream.task, stream.finished]);

    expect(seen[0]?.params.message).toMatchObject({ messageId: "order-42" });
    expect(snapshot.id).toBe("task-7");
    expect(snapshot.status.state).toBe("working");
    expect(end.state).toBe("failed");
    expect(end.eventId).toBe("3");
    expect(stream.taskId).toBe("task-7");
  });

  it("leaves no listener on a caller's long-lived signal once its streams end", async () => {
    script(() => sseResponse(taskFrames("task-8", 1, "completed")));
    const { client: c } = client();
    const signal = new AbortController().signal;
    for (let i = 0; i < 5; i++)
      await collect(c.sendStreamingMessage({ text: "Restock", storeId: "store-001", signal }));
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("never surfaces the final frame, even when nothing follows finished", async () => {
    script(() => sseResponse(taskFrames("task-1", 0)));
    const { client: c } = client();
    const events = await collect(c.sendStreamingMessage({ text: "x", storeId: "s" }));
    expect(events.map((e) => e.type)).toEqual(["task", "finished"]);
  });

  it("ignores a final frame that comes without finished and reattaches for the finished event", async () => {
    // A misbehaving stream: `final` only. The client must not take it as the end of the task.
    const seen = script((n) =>
      n === 0
        ? sseResponse([frame(1, "task", task("task-1")), frame(2, "final", task("task-1", "completed"))], "close")
        : sseResponse([frame(1, "task", task("task-1", "completed")), frame(2, "finished", finished("task-1"))]),
    );
    const { client: c } = client();
    const events = await collect(c.sendStreamingMessage({ text: "x", storeId: "s" }));
    expect(ids(events)).toEqual(["task:1", "finished:2"]);
    expect(seen[1]?.method).toBe("SubscribeToTask");
  });

  it("decodes frames split at every possible byte boundary, multi-byte characters included", async () => {
    const text = "Étagère 5 → réassort ✓";
    const withUnicode = {
      ...progress("task-1", 1, 1),
      status: {
        state: "working",
        timestamp: "t",
        message: { kind: "message", role: "agent", parts: [{ kind: "text", text }] },
      },
    };
    const all = [
      frame(1, "task", task()),
      frame(2, "update", withUnicode),
      frame(3, "finished", finished("task-1")),
      frame(3, "final", task()),
    ].join("");
    for (const size of [1, 2, 3, 7, 64]) {
      script(() => sseResponse(splitBytes(all, size)));
      const { client: c } = client();
      const events = await collect(c.sendStreamingMessage({ text: "x", storeId: "s" }));
      expect(ids(events)).toEqual(["task:1", "update:2", "finished:3"]);
      const update = events[1];
      expect(
        update?.type === "update" && update.update.kind === "status-update" && update.update.status.message?.parts[0],
      ).toEqual({ kind: "text", text });
    }
  });

  it("accepts CRLF line ends and skips keep-alive comments", async () => {
    const crlf = taskFrames("task-1", 1).map((f) => f.replaceAll("\n", "\r\n"));
    script(() => sseResponse([": keep-alive\n\n", crlf[0] as string, ": keep-alive\r\n\r\n", ...crlf.slice(1)]));
    const { client: c } = client();
    const events = await collect(c.sendStreamingMessage({ text: "x", storeId: "s" }));
    expect(ids(events)).toEqual(["task:1", "update:2", "finished:3"]);
  });

  it("fails with the typed error when the server refuses the start before streaming", async () => {
    script(() =>
      jsonRpcErrorResponse(-32602, "Invalid params: params.metadata.storeId: no Environment", 200, {
        field: "params.metadata.storeId",
      }),
    );
    const { client: c } = client();
    const stream = c.sendStreamingMessage({ text: "x", storeId: "nope" });
    const error = await stream.finished.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).data).toEqual({ field: "params.metadata.storeId" });
    await expect(stream.task).rejects.toBeInstanceOf(InvalidParamsError);
    await expect(collect(stream)).rejects.toBeInstanceOf(InvalidParamsError);
  });

  it("refuses bad input before sending anything", () => {
    const { client: c } = client();
    expect(() => c.sendStreamingMessage({ text: "  ", storeId: "s" })).toThrow(TypeError);
    expect(() => c.sendStreamingMessage({ text: "x", storeId: "" })).toThrow(/storeId/);
    expect(() => c.sendStreamingMessage({ text: "x", storeId: "s", messageId: "m".repeat(257) })).toThrow(/messageId/);
    expect(() => c.sendStreamingMessage({ storeId: "s", message: { parts: [] } })).toThrow(TypeError);
  });

  it("can speak the slash aliases to older servers", async () => {
    const seen = script((n) => {
      if (n === 0) return sseResponse(taskFrames("task-1", 1).slice(0, 2), "error");
      if (n === 1) return sseResponse(taskFrames("task-1", 1));
      return new Response(JSON.stringify({ jsonrpc: "2.0", id: 1, result: task() }), {
        headers: { "content-type": "application/json" },
      });
    });
    const { client: c } = client({ methodNames: "alias" });
    await collect(c.sendStreamingMessage({ text: "x", storeId: "s" }));
    await c.getTask("task-1");
    expect(seen.map((r) => r.method)).toEqual(["message/stream", "tasks/resubscribe", "tasks/get"]);
  });
});

describe("resume after a drop", () => {
  it("reattaches with SubscribeToTask and Last-Event-ID after a drop mid-event; every event once, in order", async () => {
    const frames = taskFrames("task-1", 3);
    const partial = (frames[3] as string).slice(0, 25);
    const seen = script((n) => {
      if (n === 0)
        return sseResponse([frames[0] as string, frames[1] as string, frames[2] as string, partial], "error");
      // The reattach: snapshot (id 1), then everything after Last-Event-ID.
      return sseResponse([frame(1, "task", task("task-1")), ...frames.slice(3)]);
    });
    const { client: c, retries } = client();
    const stream = c.sendStreamingMessage({ text: "x", storeId: "s" });
    const events = await collect(stream);

    expect(ids(events)).toEqual(["task:1", "update:2", "update:3", "update:4", "finished:5"]);
    expect(seen.map((r) => r.method)).toEqual(["SendStreamingMessage", "SubscribeToTask"]);
    expect(seen[1]?.params).toEqual({ id: "task-1" });
    expect(seen[1]?.headers.get("last-event-id")).toBe("3");
    expect(retries).toMatchObject([{ kind: "resume", attempt: 1 }]);
    expect(stream.lastEventId).toBe("5");
  });

  it("resends the start with the same messageId when the stream drops before the task id is known", async () => {
    const seen = script((n) => {
      if (n === 0) return sseResponse([": keep-alive\n\n", 'id: 1\nevent: task\ndata: {"json'], "error");
      return sseResponse(taskFrames("task-1", 1));
    });
    const { client: c } = client();
    const events = await collect(c.sendStreamingMessage({ text: "x", storeId: "s", messageId: "order-1" }));

    expect(ids(events)).toEqual(["task:1", "update:2", "finished:3"]);
    expect(seen.map((r) => r.method)).toEqual(["SendStreamingMessage", "SendStreamingMessage"]);
    expect(seen.map((r) => (r.params.message as { messageId: string }).messageId)).toEqual(["order-1", "order-1"]);
    // The resend asks for every event: the first attempt may have started the task already.
    expect(seen[1]?.headers.get("last-event-id")).toBe("0");
  });

  it("treats a clean end of the stream before finished as a drop", async () => {
    const frames = taskFrames("task-1", 2);
    const seen = script((n) =>
      n === 0 ? sseResponse(frames.slice(0, 2), "close") : sseResponse([frame(1, "task", task()), ...frames.slice(2)]),
    );
    const { client: c } = client();
    const events = await collect(c.sendStreamingMessage({ text: "x", storeId: "s" }));
    expect(ids(events)).toEqual(["task:1", "update:2", "update:3", "finished:4"]);
    expect(seen[1]?.headers.get("last-event-id")).toBe("2");
  });

  it("does not deliver events again when a reattach replays ones already seen", async () => {
    const frames = taskFrames("task-1", 3);
    // A server that ignores Last-Event-ID and replays the whole log.
    script((n) => (n === 0 ? sseResponse(frames.slice(0, 3), "error") : sseResponse(frames)));
    const { client: c } = client();
    const events = await collect(c.sendStreamingMessage({ text: "x", storeId: "s" }));
    expect(ids(events)).toEqual(["task:1", "update:2", "update:3", "update:4", "finished:5"]);
  });

  it("reattaches when the stream goes silent past the idle timeout", async () => {
    const frames = taskFrames("task-1", 1);
    const { fetch, seen } = fakeFetch((n) =>
      n === 0 ? sseResponse(frames.slice(0, 2), "hang") : sseResponse([frame(1, "task", task()), ...frames.slice(2)]),
    );
    const { client: c, retries } = client({ streamIdleTimeoutMs: 50, fetch });
    const events = await collect(c.sendStreamingMessage({ text: "x", storeId: "s" }));
    expect(ids(events)).toEqual(["task:1", "update:2", "finished:3"]);
    expect(seen[1]?.headers.get("last-event-id")).toBe("2");
    expect(retries[0]?.error.name).toBe("APITimeoutError");
  });

  it("gives up after maxResumeAttempts reattaches that bring nothing new, with bounded exponential backoff", async () => {
    const frames = taskFrames("task-1", 3);
    const seen = script((n) =>
      n === 0 ? sseResponse(frames.slice(0, 2), "error") : sseResponse([frame(1, "task", task())], "error"),
    );
    const { client: c, delays } = client({ maxResumeAttempts: 6, backoff: { initialDelayMs: 100, maxDelayMs: 1000 } });
    const stream = c.sendStreamingMessage({ text: "x", storeId: "s" });
    const events: TaskStreamEvent[] = [];
    const error = await (async () => {
      for await (const event of stream) events.push(event);
    })().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toMatch(/6 reattach attempts/);
    expect(ids(events)).toEqual(["task:1", "update:2"]);
    expect(seen).toHaveLength(7);
    // random() = 0 means no jitter: 100, 200, 400, 800, then capped at 1000.
    expect(delays).toEqual([100, 200, 400, 800, 1000, 1000]);
    await expect(stream.finished).rejects.toBeInstanceOf(APIConnectionError);
  });

  it("applies jitter of at most 25 % below the exponential delay", async () => {
    const frames = taskFrames("task-1", 1);
    // The start drops after the task event, then two reattaches bring nothing new.
    script((n) => (n < 3 ? sseResponse(frames.slice(0, 1), "error") : sseResponse(frames)));
    const { client: c, delays } = client({ random: () => 0.999, backoff: { initialDelayMs: 1000, maxDelayMs: 8000 } });
    await collect(c.sendStreamingMessage({ text: "x", storeId: "s" }));
    expect(delays).toHaveLength(3);
    for (const [i, delay] of delays.entries()) {
      const base = 1000 * 2 ** i;
      expect(delay).toBeGreaterThanOrEqual(base * 0.75);
      expect(delay).toBeLessThan(base);
    }
  });

  it("starts counting again after a reattach that brought new events", async () => {
    const frames = taskFrames("task-1", 4);
    // Each connection delivers exactly one new event and drops: it always makes progress.
    const seen = script((n) =>
      n < 5
        ? sseResponse([frame(1, "task", task()), frames[n] as string], "error")
        : sseResponse([frame(1, "task", task()), ...frames.slice(5)]),
    );
    const { client: c, delays } = client({ maxResumeAttempts: 1 });
    const events = await collect(c.sendStreamingMessage({ text: "x", storeId: "s" }));
    expect(ids(events)).toEqual(["task:1", "update:2", "update:3", "update:4", "update:5", "finished:6"]);
    expect(seen).toHaveLength(6);
    expect(new Set(delays)).toEqual(new Set([500]));
  });

  it("does not reattach after a protocol error the server sends in the stream", async () => {
    const { fetch, seen } = fakeFetch(() =>
      sseResponse([
        frame(1, "task", task()),
        `id: 2\nevent: update\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "Task not found" } })}\n\n`,
      ]),
    );
    const { client: c } = client({ fetch });
    await expect(collect(c.sendStreamingMessage({ text: "x", storeId: "s" }))).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    expect(seen).toHaveLength(1);
  });
});

describe("subscribeToTask", () => {
  it("sends the caller's Last-Event-ID and delivers only later events", async () => {
    const frames = taskFrames("task-9", 3);
    const seen = script(() => sseResponse([frame(1, "task", task("task-9")), ...frames.slice(3)]));
    const { client: c } = client();
    const stream = c.subscribeToTask("task-9", { lastEventId: 3 });
    const events = await collect(stream);
    expect(ids(events)).toEqual(["update:4", "finished:5"]);
    expect(seen[0]?.method).toBe("SubscribeToTask");
    expect(seen[0]?.params).toEqual({ id: "task-9" });
    expect(seen[0]?.headers.get("last-event-id")).toBe("3");
    // The snapshot was not delivered again, but the promise still has it.
    expect((await stream.task).id).toBe("task-9");
  });

  it("yields the snapshot and the finished event of a task that already ended", async () => {
    script(() =>
      sseResponse([
        frame(1, "task", task("t", "canceled")),
        frame(4, "finished", finished("t", "canceled")),
        frame(4, "final", task("t", "canceled")),
      ]),
    );
    const { client: c } = client();
    const stream = c.subscribeToTask("t");
    expect(ids(await collect(stream))).toEqual(["task:1", "finished:4"]);
    expect((await stream.finished).state).toBe("canceled");
  });

  it("refuses a lastEventId that is not an event id", () => {
    const { client: c } = client();
    expect(() => c.subscribeToTask("t", { lastEventId: "abc" })).toThrow(TypeError);
    expect(() => c.subscribeToTask("")).toThrow(TypeError);
  });
});

// These streams are left while silent: answered in process (see fakeFetch).
describe("aborting", () => {
  it("ends iteration with APIUserAbortError when the caller's signal aborts, without reattaching", async () => {
    const frames = taskFrames("task-1", 2);
    const { fetch, seen } = fakeFetch(() => sseResponse(frames.slice(0, 2), "hang"));
    const controller = new AbortController();
    const { client: c } = client({ fetch });
    const stream = c.sendStreamingMessage({ text: "x", storeId: "s", signal: controller.signal });
    const events: TaskStreamEvent[] = [];
    const error = await (async () => {
      for await (const event of stream) {
        events.push(event);
        if (event.type === "update") controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(ids(events)).toEqual(["task:1", "update:2"]);
    expect(seen).toHaveLength(1);
    await expect(stream.finished).rejects.toBeInstanceOf(APIUserAbortError);
  });

  it("closes quietly when the loop is left early", async () => {
    const { fetch, seen } = fakeFetch(() => sseResponse(taskFrames("task-1", 3).slice(0, 3), "hang"));
    const { client: c } = client({ fetch });
    const stream = c.sendStreamingMessage({ text: "x", storeId: "s" });
    for await (const event of stream) {
      if (event.type === "task") break;
    }
    await expect(stream.finished).rejects.toBeInstanceOf(APIUserAbortError);
    expect(seen).toHaveLength(1);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
  });

  it("rejects with APIUserAbortError when the signal is already aborted", async () => {
    const { fetch, seen } = fakeFetch(() => sseResponse(taskFrames()));
    const { client: c } = client({ fetch });
    const stream = c.sendStreamingMessage({ text: "x", storeId: "s", signal: AbortSignal.abort() });
    await expect(stream.finished).rejects.toBeInstanceOf(APIUserAbortError);
    expect(seen).toHaveLength(0);
  });
});

describe("discovery", () => {
  it("discover() reads the agent card without the token and switches to the endpoint it declares", async () => {
    // Another origin than the card's: followed because the caller said it trusts the card.
    const other = "http://edge.a2a.test/custom/rpc";
    let cardAuth: string | null = "unset";
    server.use(
      http.get(`${BASE_URL}/.well-known/agent-card.json`, ({ request }) => {
        cardAuth = request.headers.get("authorization");
        return Response.json(agentCard(other));
      }),
      http.post(other, () => sseResponse(taskFrames())),
    );
    const { client: c } = client({ allowCrossOriginEndpoint: true });
    const discovered = await c.discover();
    expect(discovered.name).toBe("Robots");
    expect(cardAuth).toBeNull();
    expect(c.endpoint).toBe(other);
    expect((await c.sendStreamingMessage({ text: "x", storeId: "s" }).finished).state).toBe("completed");
  });

  it("with only agentCardUrl, discovers before the first call", async () => {
    let cardReads = 0;
    server.use(
      http.get("http://cards.test/agent.json", () => {
        cardReads++;
        return Response.json(agentCard(ENDPOINT));
      }),
    );
    script(
      () =>
        new Response(JSON.stringify({ jsonrpc: "2.0", id: 1, result: task() }), {
          headers: { "content-type": "application/json" },
        }),
    );
    const c = new A2AClient({
      agentCardUrl: "http://cards.test/agent.json",
      token: "t",
      allowCrossOriginEndpoint: true,
    });
    expect(c.endpoint).toBeUndefined();
    await c.getTask("task-1");
    await c.getTask("task-1");
    expect(cardReads).toBe(1);
    expect(c.endpoint).toBe(ENDPOINT);
  });

  it("fails clearly on something that is not an agent card", async () => {
    server.use(http.get(`${BASE_URL}/.well-known/agent-card.json`, () => Response.json({ hello: "world" })));
    const { client: c } = client();
    await expect(c.discover()).rejects.toThrow(/not a valid A2A agent card/);
  });

  it("takes a base URL that already is the endpoint, and rejects URLs that are not http(s)", () => {
    expect(new A2AClient({ baseUrl: `${ENDPOINT}/` }).endpoint).toBe(ENDPOINT);
    expect(new A2AClient({ baseUrl: "https://x.test/prefix/" }).endpoint).toBe("https://x.test/prefix/api/v1/a2a");
    expect(() => new A2AClient({ baseUrl: "ftp://x" })).toThrow(TypeError);
    expect(() => new A2AClient({} as A2AClientOptions)).toThrow(TypeError);
  });
});
