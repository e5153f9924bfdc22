import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonByteLength, utf8ByteLength } from "./utf8-byte-length.js";

describe("utf8ByteLength", () => {
  it("agrees with Buffer.byteLength on any string, lone surrogates included", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }),
        fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((n) => String.fromCharCode(n)) }),
        (a, b) => {
          const text = a + b + a;
          expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text, "utf8"));
        },
      ),
    );
  });

  it("counts 1, 2, 3 and 4 byte characters", () => {
    expect([utf8ByteLength("a"), utf8ByteLength("é"), utf8ByteLength("€"), utf8ByteLength("🛒")]).toEqual([1, 2, 3, 4]);
  });
});

describe("jsonByteLength", () => {
  it("is the UTF-8 size of the compact JSON, 0 for undefined", () => {
    expect(jsonByteLength({ a: "é" })).toBe(Buffer.byteLength('{"a":"é"}'));
    expect(jsonByteLength(undefined)).toBe(0);
  });
});
