import { describe, expect, it } from "vitest";
import { findNulCharacter } from "./find-nul.js";

describe("findNulCharacter", () => {
  it("names the field as a dotted path, a key's U+0000 written as an escape", () => {
    expect(findNulCharacter({ message: { parts: [{ text: "a" }, { text: "b\u0000" }] } })).toBe(
      "params.message.parts.1.text",
    );
    expect(findNulCharacter({ metadata: { "k\u0000": 1 } })).toBe("params.metadata.k\\u0000");
    expect(findNulCharacter({ metadata: { k: [1, 2] } })).toBeUndefined();
  });
});
