import { describe, expect, it } from "vitest";
import { isUuid } from "./is-uuid.js";

describe("isUuid", () => {
  it("accepts UUIDs in either case and nothing else", () => {
    expect(isUuid("7D0F4D3E-1C7A-4A53-9D1E-3F1F2A0C9B11")).toBe(true);
    for (const bad of [
      "",
      "abc",
      "7d0f4d3e1c7a4a539d1e3f1f2a0c9b11",
      "7d0f4d3e-1c7a-4a53-9d1e-3f1f2a0c9b11 ",
      42,
      null,
    ]) {
      expect(isUuid(bad)).toBe(false);
    }
  });
});
