import { describe, expect, it } from "vitest";
import { sha256 } from "./sha256.js";

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

describe("sha256", () => {
  it("gives the FIPS 180-4 test vectors", () => {
    const text = (s: string) => new TextEncoder().encode(s);
    expect(hex(sha256(text("")))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(hex(sha256(text("abc")))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hex(sha256(text("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")))).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
  });

  it("agrees with WebCrypto at every length around the block and padding boundaries", async () => {
    for (let length = 0; length <= 200; length++) {
      const bytes = new Uint8Array(length).map((_, i) => (i * 151 + length * 7) & 0xff);
      const expected = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
      expect(hex(sha256(bytes)), `length ${length}`).toBe(hex(expected));
    }
  });
});
