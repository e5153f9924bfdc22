import { describe, expect, it } from "vitest";
import { encodeJsonSseFrame, encodeSseComment, encodeSseFrame } from "./encoder.js";

describe("encodeSseFrame", () => {
  it("writes id, event and one data line, then a blank line", () => {
    expect(encodeSseFrame({ id: "1", event: "task", data: '{"a":1}' })).toBe('id: 1\nevent: task\ndata: {"a":1}\n\n');
  });

  it("omits id and event when absent", () => {
    expect(encodeSseFrame({ data: "hello" })).toBe("data: hello\n\n");
  });

  it("writes empty data as one empty data line, so the event is still dispatched", () => {
    expect(encodeSseFrame({ data: "" })).toBe("data: \n\n");
  });

  it("writes multi-line data as several data lines", () => {
    expect(encodeSseFrame({ data: "one\ntwo\n\nfour" })).toBe("data: one\ndata: two\ndata: \ndata: four\n\n");
  });

  it("splits on CRLF and on a lone CR as on LF", () => {
    expect(encodeSseFrame({ data: "a\r\nb\rc\nd" })).toBe("data: a\ndata: b\ndata: c\ndata: d\n\n");
    expect(encodeSseFrame({ data: "trailing\r\n" })).toBe("data: trailing\ndata: \n\n");
  });

  it("keeps unicode (CJK, emoji, combining marks) as is", () => {
    expect(encodeSseFrame({ event: "更新", data: "倉庫 🤖📦 e\u0301" })).toBe(
      "event: 更新\ndata: 倉庫 🤖📦 e\u0301\n\n",
    );
  });

  it("keeps leading spaces of values (the decoder strips only the one after the colon)", () => {
    expect(encodeSseFrame({ id: " 7", data: "  indented" })).toBe("id:  7\ndata:   indented\n\n");
  });

  it.each(["a\nb", "a\rb", "a\r\nb", "\n"])("refuses CR/LF in id (%j)", (id) => {
    expect(() => encodeSseFrame({ id, data: "x" })).toThrow(TypeError);
  });

  it.each(["a\nb", "a\rb", "update\n\ndata: injected"])("refuses CR/LF in event (%j)", (event) => {
    expect(() => encodeSseFrame({ event, data: "x" })).toThrow(TypeError);
  });

  it("refuses NUL in id", () => {
    expect(() => encodeSseFrame({ id: "a\0b", data: "x" })).toThrow(TypeError);
  });

  it("refuses non-string data from untyped callers", () => {
    expect(() => encodeSseFrame({ data: 42 } as unknown as { data: string })).toThrow(TypeError);
  });
});

describe("encodeSseComment", () => {
  it("writes a comment block", () => {
    expect(encodeSseComment("keep-alive")).toBe(": keep-alive\n\n");
  });

  it.each(["a\nb", "a\rb", "x\r\n"])("refuses CR/LF (%j)", (text) => {
    expect(() => encodeSseComment(text)).toThrow(TypeError);
  });
});

describe("encodeJsonSseFrame", () => {
  it("writes the payload as one line of JSON and a numeric id as its decimal form", () => {
    const payload = { jsonrpc: "2.0", id: "req-1", result: { text: "line one\nline two\r\n" } };
    const frame = encodeJsonSseFrame({ id: 3, event: "update", payload });
    const lines = frame.split("\n");
    expect(lines).toEqual(["id: 3", "event: update", `data: ${JSON.stringify(payload)}`, "", ""]);
    expect(JSON.parse(lines[2]?.slice("data: ".length) ?? "null")).toEqual(payload);
  });

  it("accepts a string id and no event", () => {
    expect(encodeJsonSseFrame({ id: "abc", payload: null })).toBe("id: abc\ndata: null\n\n");
  });

  it("refuses payloads with no JSON form and non-finite ids", () => {
    expect(() => encodeJsonSseFrame({ payload: undefined })).toThrow(TypeError);
    expect(() => encodeJsonSseFrame({ payload: () => 1 })).toThrow(TypeError);
    expect(() => encodeJsonSseFrame({ payload: 1n })).toThrow(TypeError);
    expect(() => encodeJsonSseFrame({ id: Number.NaN, payload: {} })).toThrow(TypeError);
  });

  it("refuses CR/LF in the event name", () => {
    expect(() => encodeJsonSseFrame({ event: "a\nb", payload: {} })).toThrow(TypeError);
  });
});
