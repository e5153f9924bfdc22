import { describe, expect, it } from "vitest";
import { InvalidParamsError } from "../errors.js";
import { A2A_LIMITS as L } from "../limits.js";
import { GetTaskParams, ListTasksParams, SendStreamingMessageParams, TaskIdParams } from "./params.js";

function start(overrides: { message?: Record<string, unknown>; metadata?: Record<string, unknown> } = {}) {
  return {
    message: {
      messageId: "m-1",
      role: "ROLE_USER",
      parts: [{ text: "Restock aisle 5" }],
      ...overrides.message,
    },
    metadata: { storeId: "store-001", ...overrides.metadata },
  };
}

/** What the handler answers: data.field and the message, from the schema's first issue. */
function refusal(schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }, params: unknown) {
  const parsed = schema.safeParse(params);
  if (parsed.success) return undefined;
  const error = InvalidParamsError.fromZod(parsed.error as never);
  return { field: (error.data as { field: string }).field, message: error.message };
}

describe("SendStreamingMessageParams", () => {
  it("accepts a start with every field at its bound", () => {
    const id = "i".repeat(L.idLength);
    const params = start({
      message: {
        messageId: id,
        contextId: id,
        parts: [...Array.from({ length: L.parts - 1 }, () => ({ text: "" })), { text: "x".repeat(L.textBytes) }],
      },
      metadata: { storeId: id },
    });
    expect(refusal(SendStreamingMessageParams, params)).toBeUndefined();
  });

  it.each([
    ["messageId", start({ message: { messageId: "m".repeat(L.idLength + 1) } }), "params.message.messageId"],
    ["contextId", start({ message: { contextId: "c".repeat(L.idLength + 1) } }), "params.message.contextId"],
    ["taskId", start({ message: { taskId: "t".repeat(L.idLength + 1) } }), "params.message.taskId"],
    ["storeId", start({ metadata: { storeId: "s".repeat(L.idLength + 1) } }), "params.metadata.storeId"],
  ])("refuses a %s over %s characters", (_what, params, field) => {
    expect(refusal(SendStreamingMessageParams, params)).toEqual({
      field,
      message: `Invalid params: ${field}: must be at most ${L.idLength} characters`,
    });
  });

  it("refuses more parts than the limit, naming the limit", () => {
    const parts = Array.from({ length: L.parts + 1 }, () => ({ text: "x" }));
    expect(refusal(SendStreamingMessageParams, start({ message: { parts } }))).toEqual({
      field: "params.message.parts",
      message: `Invalid params: params.message.parts: a message has at most ${L.parts} parts`,
    });
  });

  it("counts text in UTF-8 bytes across parts and names the part that crosses the bound", () => {
    const half = "é".repeat(L.textBytes / 4); // 2 bytes each: half the bound per part
    const parts = [half, half, "x"].map((text) => ({ text }));
    const result = refusal(SendStreamingMessageParams, start({ message: { parts } }));
    expect(result?.field).toBe("params.message.parts.2.text");
    expect(result?.message).toContain(String(L.textBytes));
  });

  it("counts all metadata of the request together", () => {
    const part = { text: "x", metadata: { a: "m".repeat(L.metadataBytes / 2) } };
    const result = refusal(
      SendStreamingMessageParams,
      start({ message: { parts: [part] }, metadata: { note: "m".repeat(L.metadataBytes / 2) } }),
    );
    expect(result?.field).toBe("params.message.parts.0.metadata");
    expect(result?.message).toContain(String(L.metadataBytes));
  });

  it("counts file and data part content together", () => {
    const data = { data: { blob: "d".repeat(L.partContentBytes / 2) } };
    const file = { url: `https://x.test/${"f".repeat(L.partContentBytes / 2)}` };
    const result = refusal(SendStreamingMessageParams, start({ message: { parts: [{ text: "x" }, data, file] } }));
    expect(result?.field).toBe("params.message.parts.2.url");
    expect(result?.message).toContain(String(L.partContentBytes));
  });

  it.each([
    ["text", start({ message: { parts: [{ text: "a\ud800" }] } }), "params.message.parts.0.text"],
    ["messageId", start({ message: { messageId: "\udc00" } }), "params.message.messageId"],
    ["a metadata key", start({ metadata: { "\ud800k": 1 } }), "params.metadata.\ufffdk"],
    ["configuration", { ...start(), configuration: { x: ["\ud800"] } }, "params.configuration.x.0"],
  ])("refuses a lone surrogate in %s, naming it", (_what, params, field) => {
    const result = refusal(SendStreamingMessageParams, params);
    expect(result?.field).toBe(field);
    expect(result?.message).toContain("well-formed Unicode");
  });

  it("reports zod's own problems first", () => {
    const params = start({ message: { role: 7, parts: [{ text: "\ud800" }] } });
    expect(refusal(SendStreamingMessageParams, params)?.field).toBe("params.message.role");
  });
});

describe("GetTaskParams and TaskIdParams", () => {
  it.each([
    [GetTaskParams, { id: "x".repeat(L.idLength + 1) }, "params.id", String(L.idLength)],
    [TaskIdParams, { id: "\ud800" }, "params.id", "well-formed"],
    [
      TaskIdParams,
      { id: "t", metadata: { m: "m".repeat(L.metadataBytes) } },
      "params.metadata",
      String(L.metadataBytes),
    ],
    [GetTaskParams, { id: "t", metadata: { "\udfff": 1 } }, "params.metadata.\ufffd", "well-formed"],
  ])("refuses %#", (schema, params, field, mentions) => {
    const result = refusal(schema, params);
    expect(result?.field).toBe(field);
    expect(result?.message).toContain(mentions);
  });
});

describe("ListTasksParams", () => {
  it.each([
    ["a contextId holding U+0000", { contextId: "ctx\u0000" }, "params.contextId", "U+0000"],
    [
      "a statusTimestampAfter in year 0000",
      { statusTimestampAfter: "0000-01-01T00:00:00Z" },
      "params.statusTimestampAfter",
      "0001",
    ],
    [
      "a day that no month has",
      { statusTimestampAfter: "2023-02-29T00:00:00Z" },
      "params.statusTimestampAfter",
      "ISO-8601",
    ],
    [
      "an offset that carries the instant into year 0",
      { statusTimestampAfter: "0001-01-01T00:00:00+14:00" },
      "params.statusTimestampAfter",
      "0001",
    ],
  ])("refuses %s, which PostgreSQL cannot read", (_what, params, field, mentions) => {
    const refused = refusal(ListTasksParams, params);
    expect(refused?.field).toBe(field);
    expect(refused?.message).toContain(mentions);
  });

  it("accepts real instants, a leap day and an offset included", () => {
    for (const at of ["2024-02-29T23:59:59.999Z", "0001-01-01T00:00:00Z", "2026-11-27T10:00:00+01:00"]) {
      expect(refusal(ListTasksParams, { statusTimestampAfter: at, contextId: "ctx-1" })).toBeUndefined();
    }
  });
});
