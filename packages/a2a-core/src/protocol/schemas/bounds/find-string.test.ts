import { describe, expect, it } from "vitest";
import { findString } from "./find-string.js";

const hasX = (text: string) => text.includes("x");

describe("findString", () => {
  it("reports strings and keys in document order, a key before anything inside its value", () => {
    expect(findString({ a: "ok", b: { c: "x" }, x: 1 }, hasX)).toEqual(["b", "c"]);
    expect(findString({ a: "ok", xb: { c: "x" } }, hasX)).toEqual(["xb"]);
    expect(findString([[], {}, [{ k: ["", "x"] }]], hasX)).toEqual([2, 0, "k", 1]);
    expect(findString("x", hasX)).toEqual([]);
  });

  it("finds nothing in numbers, booleans, null, or thousands of empty containers", () => {
    const tiny = Array.from({ length: 5_000 }, (_, i) => (i % 2 ? [] : {}));
    expect(findString({ n: 1, b: true, z: null, tiny }, hasX)).toBeUndefined();
    expect(findString(42, hasX)).toBeUndefined();
  });
});
