import { describe, expect, it } from "vitest";
import { findIllFormedString } from "./find-ill-formed-string.js";

describe("findIllFormedString", () => {
  it("finds a lone high or low surrogate in a string, a key, or deep inside arrays", () => {
    expect(findIllFormedString({ a: "x\ud800" })).toEqual(["a"]);
    expect(findIllFormedString({ a: "\udc00x" })).toEqual(["a"]);
    expect(findIllFormedString({ a: { "b\udbff": 1 } })).toEqual(["a", "b\ufffd"]);
    expect(findIllFormedString({ a: [1, "ok", ["\ude00"]] })).toEqual(["a", 2, 0]);
    expect(findIllFormedString("\ud83d")).toEqual([]);
  });

  it("reports the first offender in document order", () => {
    expect(findIllFormedString({ a: "ok", b: ["\ud800"], c: "\ud800" })).toEqual(["b", 0]);
  });

  it("accepts well-formed text, surrogate pairs (emoji) included", () => {
    expect(
      findIllFormedString({ text: "🛒 restock", n: 1, nested: [{ ключ: "значение" }], nil: null }),
    ).toBeUndefined();
  });

  it("walks very deep values without exhausting the stack", () => {
    let deep: unknown = "\ud800";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findIllFormedString(deep)).toHaveLength(100_000);
  });
});
