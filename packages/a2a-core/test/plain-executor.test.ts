import type { LooseJson } from "@a2a-partner/test-support/loose-json";
import { describe, expect, it } from "vitest";
import { toFetchHandler } from "../src/adapters/fetch.js";
import { environmentExecutor } from "../src/environments/environment-executor.js";
import type { EnvironmentTaskContext } from "../src/environments/environment-executor-types.js";
import type { StartContext, TaskExecutionContext, TaskExecutor } from "../src/ports/task-executor.js";
import { InvalidParamsError } from "../src/protocol/errors.js";
import { decodeSseStream } from "../src/protocol/sse/decoder.js";
import { type Harness, harnessPerTest, readFrames } from "./support/handler-harness.js";

/**
 * A generic A2A agent on the core: a plain TaskExecutor (no prepareStart) starts and completes tasks whose
 * starts name no storeId, in every dialect and binding; the start hook of the port, and the Environment
 * layer over it (environmentExecutor), whose refusals are the reference server's.
 */

const harness = harnessPerTest();

/** Answers with the text it was sent; keeps every context it was given. */
class PlainExecutor implements TaskExecutor {
  readonly contexts: TaskExecutionContext[] = [];
  async execute(context: TaskExecutionContext) {
    this.contexts.push(context);
    await context.emit({ kind: "status", message: "working" });
    const text = context.message.parts.map((part) => part.text ?? "").join("");
    return { state: "TASK_STATE_COMPLETED" as const, message: `got ${text}` };
  }
}

const DATA = { data: { sku: "A-5", count: 3 } };
const v1Params = (messageId = crypto.randomUUID()) => ({
  message: { messageId, role: "ROLE_USER", parts: [{ text: "hello" }, DATA], metadata: { channel: "demo" } },
});
const v03Params = (messageId = crypto.randomUUID()) => ({
  message: {
    kind: "message",
    messageId,
    role: "user",
    parts: [
      { kind: "text", text: "hello" },
      { kind: "data", ...DATA },
    ],
    metadata: { channel: "demo" },
  },
});

function rpc(h: Harness<TaskExecutor>, method: string, params: unknown, headers: Record<string, string> = {}) {
  return h.call({ jsonrpc: "2.0", id: 1, method, params }, { headers });
}

function httpJson(h: Harness<TaskExecutor>, route: string, body: unknown) {
  return toFetchHandler(h.handler)(
    new Request(`http://test/api/v1/a2a${route}`, {
      method: "POST",
      headers: { authorization: "Bearer partner-a", "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

/** The task of a SendMessage answer or of a stream's first frame, in whichever dialect it came. */
function taskOf(result: { task?: unknown; kind?: string }): Record<string, LooseJson> {
  return (result.kind === "task" ? result : result.task) as Record<string, LooseJson>;
}

const STARTS: Array<[string, (h: Harness<TaskExecutor>) => Promise<{ task: LooseJson; final: LooseJson }>]> = [
  [
    "JSON-RPC v1.0 SendMessage",
    async (h) => {
      const { result } = await (await rpc(h, "SendMessage", v1Params(), { "A2A-Version": "1.0" })).json();
      return { task: taskOf(result), final: taskOf(result).status.state };
    },
  ],
  [
    "JSON-RPC v1.0 SendStreamingMessage",
    async (h) => {
      const frames = await readFrames(await rpc(h, "SendStreamingMessage", v1Params(), { "A2A-Version": "1.0" }));
      return { task: taskOf(frames[0]?.result), final: frames.at(-2)?.result.statusUpdate.status.state };
    },
  ],
  [
    "JSON-RPC v0.3 message/send",
    async (h) => {
      const { result } = await (await rpc(h, "message/send", v03Params())).json();
      return { task: result, final: result.status.state };
    },
  ],
  [
    "JSON-RPC v0.3 message/stream",
    async (h) => {
      const frames = await readFrames(await rpc(h, "message/stream", v03Params()));
      return { task: frames[0]?.result, final: frames.at(-2)?.result.status.state };
    },
  ],
  [
    "HTTP+JSON POST /message:send",
    async (h) => {
      const answer = await (await httpJson(h, "/message:send", v1Params())).json();
      return { task: answer.task, final: answer.task.status.state };
    },
  ],
  [
    "HTTP+JSON POST /message:stream",
    async (h) => {
      const frames: LooseJson[] = [];
      const res = await httpJson(h, "/message:stream", v1Params());
      // Bare StreamResponse frames, no JSON-RPC envelope.
      for await (const frame of decodeSseStream(res.body as ReadableStream<Uint8Array>))
        frames.push(JSON.parse(frame.data));
      return { task: frames[0]?.task, final: frames.at(-2)?.statusUpdate.status.state };
    },
  ],
];

describe("a plain executor (no prepareStart)", () => {
  it.each(STARTS)("starts and completes a task that names no storeId: %s", async (_name, start) => {
    const executor = new PlainExecutor();
    const h = harness<TaskExecutor>(executor);
    const { task, final } = await start(h);
    expect(["completed", "TASK_STATE_COMPLETED"]).toContain(final);
    expect(task.metadata).not.toHaveProperty("storeId");
    expect(Object.keys(task.metadata)).toEqual(["messageId"]);
    // The executor had the whole message: every part and its metadata.
    const [context] = executor.contexts;
    expect(context?.message.parts).toEqual([{ text: "hello" }, DATA]);
    expect(context?.message.metadata).toEqual({ channel: "demo" });
    expect(context).not.toHaveProperty("storeId");
    expect(context).not.toHaveProperty("text");
  });

  it("takes a message with no text at all: a file or data part is a task too", async () => {
    const executor = new PlainExecutor();
    const h = harness<TaskExecutor>(executor);
    const file = { raw: "aGVsbG8=", filename: "plan.txt", mediaType: "text/plain" };
    const parts = [file, DATA];
    const { result } = await (
      await rpc(
        h,
        "SendMessage",
        { message: { messageId: "m-file", role: "ROLE_USER", parts } },
        { "A2A-Version": "1.0" },
      )
    ).json();
    expect(result.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(executor.contexts[0]?.message.parts).toEqual(parts);
  });
});

describe("prepareStart", () => {
  /** A hook that requires `params.metadata.tenant` and keeps it in the task's metadata. */
  class TenantExecutor extends PlainExecutor {
    readonly asked: StartContext[] = [];
    async prepareStart(context: StartContext) {
      this.asked.push(context);
      const { tenant } = context.metadata;
      if (typeof tenant !== "string") throw InvalidParamsError.forField("params.metadata.tenant", "is required");
      return { metadata: { tenant } };
    }
  }

  it("refuses a start with its error, naming the field; nothing is stored or dispatched", async () => {
    const executor = new TenantExecutor();
    const h = harness<TaskExecutor>(executor);
    const { body } = await h.rpc("SendStreamingMessage", v03Params("m-none"));
    expect(body.error).toMatchObject({
      code: -32602,
      message: "Invalid params: params.metadata.tenant: is required",
      data: { field: "params.metadata.tenant" },
    });
    expect(executor.contexts).toEqual([]);
    expect(await h.stores.idempotency.get("ws-a", "m-none")).toBeUndefined();
  });

  it("adds its entries to the new task's metadata; a retry that names another value is refused", async () => {
    const executor = new TenantExecutor();
    const h = harness<TaskExecutor>(executor);
    const params = { ...v03Params("m-tenant"), metadata: { tenant: "north", other: 1 } };
    const frames = await readFrames(await rpc(h, "message/stream", params));
    expect(frames[0]?.result.metadata).toEqual({ tenant: "north", messageId: "m-tenant" });
    expect(executor.asked[0]?.message.parts).toHaveLength(2);

    const again = await readFrames(await rpc(h, "message/stream", params), 1);
    expect(again[0]?.result.id).toBe(frames[0]?.result.id);
    const moved = await h.rpc("message/stream", { ...params, metadata: { tenant: "south" } });
    expect(moved.body.error.message).toBe(
      `Invalid params: params.message.messageId: was used for another task (${frames[0]?.result.id}) with a ` +
        "different message or tenant; send a new messageId for a new task",
    );
    expect(executor.contexts).toHaveLength(1);
  });
});

describe("environmentExecutor", () => {
  /** Environments store-…; ws-a's default is store-007, ws-b names none. */
  function robots() {
    const contexts: EnvironmentTaskContext[] = [];
    const executor = environmentExecutor({
      hasEnvironment: async (_workspaceId, storeId) => storeId.startsWith("store-"),
      defaultEnvironment: async (workspaceId) => (workspaceId === "ws-a" ? "store-007" : undefined),
      async execute(context) {
        contexts.push(context);
        return { state: "TASK_STATE_COMPLETED" };
      },
    });
    return { contexts, h: harness<TaskExecutor>(executor) };
  }
  const start = (text: string, messageId: string, metadata: Record<string, unknown> = {}) => ({
    message: { messageId, role: "user", parts: [{ kind: "text", text }] },
    metadata,
  });

  it("gives execute the task's Environment and text, from the start or the workspace's default", async () => {
    const { contexts, h } = robots();
    const named = await readFrames(
      await rpc(h, "message/stream", start(" restock\naisle 5 ", "m-1", { storeId: "store-001" })),
    );
    expect(named[0]?.result.metadata).toEqual({ storeId: "store-001", messageId: "m-1" });
    await readFrames(await rpc(h, "message/stream", start("restock", "m-2")));
    expect(contexts.map(({ storeId, text, taskId }) => ({ storeId, text, taskId }))).toEqual([
      { storeId: "store-001", text: "restock\naisle 5", taskId: named[0]?.result.id },
      { storeId: "store-007", text: "restock", taskId: expect.any(String) },
    ]);
    // The port's context underneath: the same task and message.
    expect(contexts[0]?.task.metadata.storeId).toBe("store-001");
    expect(contexts[0]?.message.parts).toEqual([{ text: " restock\naisle 5 " }]);
  });

  it("refuses as the reference server always has: no text, no Environment named or defaulted, or none such", async () => {
    const { contexts, h } = robots();
    const wordless = await h.rpc("message/stream", {
      message: { messageId: "m-2b", role: "user", parts: [{ kind: "data", data: { sku: "A-5" } }] },
      metadata: { storeId: "store-001" },
    });
    expect(wordless.body.error).toMatchObject({
      code: -32602,
      message: "Invalid params: params.message.parts: the message needs at least one non-empty text part",
      data: { field: "params.message.parts" },
    });
    const none = await h.rpc("message/stream", start("restock", "m-3"), "partner-b");
    expect(none.body.error).toMatchObject({
      code: -32602,
      message:
        "Invalid params: params.metadata.storeId: is required: the storeId of the Environment (the store and its " +
        "robots) that carries the task out (your workspace names no default Environment)",
      data: { field: "params.metadata.storeId" },
    });
    const unknown = await h.rpc("message/stream", start("restock", "m-4", { storeId: "warehouse-9" }));
    expect(unknown.body.error).toMatchObject({
      code: -32602,
      message: "Invalid params: params.metadata.storeId: no Environment with this storeId in your workspace",
      data: { field: "params.metadata.storeId" },
    });
    expect(contexts).toEqual([]);
  });

  it("matches a retry on its text and storeId, and one that names no storeId on its text alone", async () => {
    const { contexts, h } = robots();
    const first = await readFrames(await rpc(h, "message/stream", start("restock", "m-5", { storeId: "store-001" })));
    const id = first[0]?.result.id;
    const bare = await readFrames(await rpc(h, "message/stream", start("restock", "m-5")), 1);
    expect(bare[0]?.result.id).toBe(id);
    for (const retry of [start("restock", "m-5", { storeId: "store-002" }), start("tidy up", "m-5")]) {
      expect((await h.rpc("message/stream", retry)).body.error.message).toBe(
        `Invalid params: params.message.messageId: was used for another task (${id}) with a different message or ` +
          "storeId; send a new messageId for a new task",
      );
    }
    expect(contexts).toHaveLength(1);
  });
});
