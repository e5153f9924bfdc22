import type { LooseJson } from "@a2a-partner/test-support/loose-json";
import { describe, expect, it } from "vitest";
import { toFetchHandler } from "../src/adapters/fetch.js";
import { agentCardResponder } from "../src/index.js";
import { harnessPerTest, ScriptedExecutor } from "./support/handler-harness.js";

/** A2A v1.0.1's media type on HTTP+JSON, its Content-Type error, and ProtoJSON's proto field names. */
const makeHarness = harnessPerTest();
const BASE = "http://test/api/v1/a2a";

function send(contentType: string | undefined, extra: Record<string, string> = {}) {
  const h = makeHarness(new ScriptedExecutor([]));
  const body = JSON.stringify({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "restock aisle 5" }] },
    metadata: { storeId: "store-001" },
  });
  const headers: Record<string, string> = { authorization: "Bearer partner-a", ...extra };
  if (contentType !== undefined) headers["content-type"] = contentType;
  // Bytes, not a string: a string body would be labelled text/plain by Request itself.
  const bytes = new TextEncoder().encode(body);
  return toFetchHandler(h.handler)(new Request(`${BASE}/message:send`, { method: "POST", headers, body: bytes }));
}

describe("HTTP+JSON media types", () => {
  it("refuses a body sent as something other than JSON with 415 CONTENT_TYPE_NOT_SUPPORTED", async () => {
    const res = await send("text/plain");
    expect(res.status).toBe(415);
    const { error } = (await res.json()) as { error: { status: string; details: Array<{ reason?: string }> } };
    expect(error.status).toBe("INVALID_ARGUMENT");
    expect(error.details[0]?.reason).toBe("CONTENT_TYPE_NOT_SUPPORTED");
  });

  it("reads application/a2a+json and answers in it", async () => {
    const res = await send("application/a2a+json; charset=utf-8");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/a2a+json; charset=utf-8");
    expect(((await res.json()) as { task: { status: { state: string } } }).task.status.state).toBe(
      "TASK_STATE_COMPLETED",
    );
  });

  it("answers in application/a2a+json to a client that accepts it, and in application/json otherwise", async () => {
    const asked = await send("application/json", { accept: "application/a2a+json, application/json;q=0.5" });
    expect(asked.headers.get("content-type")).toBe("application/a2a+json; charset=utf-8");
    const plain = await send(undefined);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });
});

describe("JSON-RPC media types", () => {
  it("refuses a v1.0 request (by its A2A-Version) sent as text/plain with -32005; v0.3 never checked", async () => {
    const h = makeHarness(new ScriptedExecutor([]));
    const body = { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "nope" } };
    const v1 = await h.call(body, { headers: { "a2a-version": "1.0", "content-type": "text/plain" } });
    expect(((await v1.json()) as { error: { code: number } }).error.code).toBe(-32005);
    const v03 = await h.call(body, { headers: { "content-type": "text/plain" } });
    expect(((await v03.json()) as { error: { code: number } }).error.code).toBe(-32001);
    const a2a = await h.call(body, { headers: { "a2a-version": "1.0", "content-type": "application/a2a+json" } });
    expect(((await a2a.json()) as { error: { code: number } }).error.code).toBe(-32001);
  });
});

describe("v1.0 params with proto field names", () => {
  it("reads task_id and history_length as taskId and historyLength (ProtoJSON takes both)", async () => {
    const h = makeHarness(new ScriptedExecutor([]));
    const v1 = (body: unknown) =>
      h.call(body, { headers: { "a2a-version": "1.0" } }).then((res) => res.json() as Promise<LooseJson>);
    const started = await v1({
      jsonrpc: "2.0",
      id: 0,
      method: "SendMessage",
      params: {
        message: { message_id: "m-1", role: "ROLE_USER", parts: [{ text: "restock" }], metadata: { keep_me: 1 } },
        metadata: { storeId: "store-001" },
      },
    });
    const id = started.result.task.id as string;
    const task = await v1({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id, history_length: 0 } });
    expect(task.result.history ?? []).toEqual([]);
    // Free-form fields keep their keys as sent.
    const whole = await v1({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id } });
    expect(whole.result.history[0]).toMatchObject({ messageId: "m-1", metadata: { keep_me: 1 } });
  });
});

describe("agentCardResponder", () => {
  const lastModified = new Date("2026-12-01T10:00:00Z");
  const respond = agentCardResponder({ name: "agent", version: "1.0.0" }, { lastModified, maxAgeSeconds: 60 });

  it("serves the card with Cache-Control, ETag and Last-Modified", () => {
    const answer = respond(new Headers());
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body ?? "")).toEqual({ name: "agent", version: "1.0.0" });
    expect(answer.headers).toMatchObject({
      "cache-control": "public, max-age=60",
      "last-modified": "Tue, 01 Dec 2026 10:00:00 GMT",
    });
    expect(answer.headers.etag).toMatch(/^"[0-9a-f]{16}"$/);
  });

  it("answers 304 to a client whose copy is current, by ETag or else by date", () => {
    const { etag } = respond(new Headers()).headers;
    expect(respond(new Headers({ "if-none-match": `"other", ${etag}` })).status).toBe(304);
    expect(respond(new Headers({ "if-none-match": '"other"' })).status).toBe(200);
    expect(respond(new Headers({ "if-modified-since": lastModified.toUTCString() })).status).toBe(304);
    expect(respond(new Headers({ "if-modified-since": "Mon, 30 Nov 2026 10:00:00 GMT" })).status).toBe(200);
  });
});
