import { A2A_LIMITS, ERROR_CODES } from "@a2a-partner/a2a-core";
import { describe, expect, it } from "vitest";
import { type Backend, postgresAvailable } from "./support/backends.ts";
import { envelope, post, readFrames, startParams } from "./support/rpc.ts";
import { serverPerSuite } from "./support/server-per-suite.ts";

const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

type Params = ReturnType<typeof startParams> & {
  message: Record<string, unknown> & { parts: Array<Record<string, unknown>> };
  metadata: Record<string, unknown>;
};

/** A valid start with one thing changed. */
function start(change: (params: Params) => void): Params {
  const params = startParams("Restock aisle 5", crypto.randomUUID()) as Params;
  change(params);
  return params;
}

const L = A2A_LIMITS;

/** A case of the bounds table: what is over its bound, how, the field the answer names, and the limit it mentions. */
type BoundCase = [what: string, change: (params: Params) => void, field: string, limit: string];

/** An id one character over its bound. */
function overlongId(within: "message" | "metadata", key: string): BoundCase {
  return [
    key,
    (p) => Object.assign(p[within], { [key]: key.charAt(0).repeat(L.idLength + 1) }),
    `params.${within}.${key}`,
    `${L.idLength}`,
  ];
}

// Data a client can send but PostgreSQL cannot keep (or that is past a documented bound) is the caller's
// mistake: -32602 naming the field, HTTP 200 and no Retry-After. Answering 503 told clients to retry a
// request that can never succeed.
describe.each(backends)("request data on %s", (backend) => {
  const suite = serverPerSuite(backend, { rateLimitPerSecond: 0 });

  async function expectInvalidParams(method: string, params: unknown, field: string, mentions?: string) {
    const res = await post(suite.server.a2aUrl, envelope(method, params), suite.server.seeded.partnerToken);
    const body = await res.json();
    expect({ status: res.status, retryAfter: res.headers.get("retry-after"), code: body.error?.code }).toEqual({
      status: 200,
      retryAfter: null,
      code: ERROR_CODES.InvalidParams,
    });
    expect(body.error.data.field).toBe(field);
    if (mentions) expect(body.error.message).toContain(mentions);
  }

  it.each([
    [
      "text",
      (p: Params) => Object.assign(p.message.parts[0] as object, { text: "restock \ud800 aisle" }),
      "params.message.parts.0.text",
    ],
    ["messageId", (p: Params) => Object.assign(p.message, { messageId: "m-\udbff" }), "params.message.messageId"],
    ["contextId", (p: Params) => Object.assign(p.message, { contextId: "\udc00ctx" }), "params.message.contextId"],
    ["storeId", (p: Params) => Object.assign(p.metadata, { storeId: "store-001\ud800" }), "params.metadata.storeId"],
    ["a metadata value", (p: Params) => Object.assign(p.metadata, { note: "\ud83d" }), "params.metadata.note"],
    ["a metadata key", (p: Params) => Object.assign(p.metadata, { "k\ud800": 1 }), "params.metadata.k\ufffd"],
    [
      "a nested message metadata value",
      (p: Params) => Object.assign(p.message, { metadata: { a: { b: ["ok", "\ude00"] } } }),
      "params.message.metadata.a.b.1",
    ],
    [
      "a data part",
      (p: Params) => p.message.parts.push({ kind: "data", data: { "\udfff": true } }),
      "params.message.parts.1.data.\ufffd",
    ],
  ])("refuses a lone surrogate in %s with -32602 naming the field", async (_what, change, field) => {
    await expectInvalidParams("SendStreamingMessage", start(change), field, "well-formed");
  });

  it("refuses a lone surrogate in the task id of GetTask, CancelTask and SubscribeToTask", async () => {
    for (const method of ["GetTask", "CancelTask", "SubscribeToTask"]) {
      await expectInvalidParams(method, { id: "\ud800" }, "params.id", "well-formed");
    }
  });

  it("keeps a well-formed surrogate pair (an emoji) intact through the store", async () => {
    const text = "Restock aisle 5 🛒";
    const frames = await readFrames(
      await post(
        suite.server.a2aUrl,
        envelope("SendStreamingMessage", startParams(text, "emoji-🛒")),
        suite.server.seeded.partnerToken,
      ),
    );
    expect(frames[0]?.result.history[0].parts[0].text).toBe(text);
    expect(frames[0]?.result.metadata.messageId).toBe("emoji-🛒");
  });

  it.each<BoundCase>([
    overlongId("message", "messageId"),
    overlongId("message", "contextId"),
    overlongId("message", "taskId"),
    overlongId("metadata", "storeId"),
    [
      "text (one part)",
      (p: Params) => Object.assign(p.message.parts[0] as object, { text: "x".repeat(L.textBytes + 1) }),
      "params.message.parts.0.text",
      `${L.textBytes}`,
    ],
    [
      "text (several parts together, counted in UTF-8 bytes)",
      (p: Params) => {
        // 3 bytes each in UTF-8: two parts of 2,000 characters (12,000 bytes) fit, the third crosses 16 KiB.
        p.message.parts = [0, 1, 2].map(() => ({ kind: "text", text: "€".repeat(2000) }));
      },
      "params.message.parts.2.text",
      `${L.textBytes}`,
    ],
    [
      "parts",
      (p: Params) => {
        p.message.parts = Array.from({ length: L.parts + 1 }, () => ({ kind: "text", text: "x" }));
      },
      "params.message.parts",
      `${L.parts}`,
    ],
    [
      "params.metadata",
      (p: Params) => Object.assign(p.metadata, { note: "n".repeat(L.metadataBytes) }),
      "params.metadata",
      `${L.metadataBytes}`,
    ],
    [
      "metadata (all of a request's metadata together)",
      (p: Params) => {
        p.metadata.note = "n".repeat(L.metadataBytes / 2);
        p.message.metadata = { note: "n".repeat(L.metadataBytes / 2) };
      },
      "params.message.metadata",
      `${L.metadataBytes}`,
    ],
    [
      "a data part",
      (p: Params) => p.message.parts.push({ kind: "data", data: { blob: "d".repeat(L.partContentBytes) } }),
      "params.message.parts.1.data",
      `${L.partContentBytes}`,
    ],
    [
      "a file part",
      (p: Params) => p.message.parts.push({ kind: "file", file: { bytes: "QUFB".repeat(L.partContentBytes / 4 + 1) } }),
      "params.message.parts.1.file",
      `${L.partContentBytes}`,
    ],
  ])("refuses %s over its bound with -32602 naming the field and the limit", async (_what, change, field, limit) => {
    await expectInvalidParams("SendStreamingMessage", start(change), field, limit);
  });

  it("refuses a GetTask id over its bound", async () => {
    await expectInvalidParams("GetTask", { id: "x".repeat(L.idLength + 1) }, "params.id", `${L.idLength}`);
  });

  it("accepts a start with every field at its bound, and stores and echoes it unchanged", async () => {
    const messageId = `m${"i".repeat(L.idLength - 1)}`;
    const parts = Array.from({ length: L.parts }, (_, i) => ({
      kind: "text",
      text: "é".repeat(Math.floor(L.textBytes / L.parts / 2)),
      ...(i === 0 ? { metadata: { tag: "x".repeat(L.metadataBytes / 2 - 100) } } : {}),
    }));
    const params = {
      message: { role: "user", messageId, contextId: "c".repeat(L.idLength), parts },
      metadata: { storeId: "store-001", note: "n".repeat(L.metadataBytes / 2 - 100) },
    };
    const body = JSON.stringify(envelope("SendStreamingMessage", params));
    expect(Buffer.byteLength(body)).toBeLessThan(L.maxBodyBytes);
    const frames = await readFrames(await post(suite.server.a2aUrl, body, suite.server.seeded.partnerToken));
    expect(frames.at(-2)?.event).toBe("finished");
    expect(frames[0]?.result.contextId).toBe(params.message.contextId);
    expect(frames[0]?.result.history[0].parts).toHaveLength(L.parts);
  });

  it("answers 413 for a body over the documented limit", async () => {
    const res = await post(
      suite.server.a2aUrl,
      envelope(
        "SendStreamingMessage",
        start((p) => Object.assign(p.message, { contextId: "c".repeat(900_000) })),
      ),
      suite.server.seeded.partnerToken,
    );
    expect(res.status).toBe(413);
    expect((await res.json()).error.message).toContain(String(L.maxBodyBytes));
  });
});
