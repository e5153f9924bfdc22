import { describe, expect, it } from "vitest";
import { A2A_LIMITS as L } from "../src/protocol/limits.js";
import { harnessPerTest } from "./support/handler-harness.js";

const harness = harnessPerTest();

function startWithFile(file: Record<string, unknown>) {
  return {
    message: {
      role: "user",
      messageId: `m-${Math.random()}`,
      parts: [
        { kind: "text", text: "restock aisle 5" },
        { kind: "file", file },
      ],
    },
    metadata: { storeId: "store-001" },
  };
}

// The core checks a start in its model (A2A v1.0: a file part is `raw` / `url`, `filename`,
// `mediaType`); a v0.3 client is told the field it sent (`file.bytes`, `file.uri`, `file.name`, …).
describe("a refused v0.3 start", () => {
  it("names the file part's fields as v0.3 spells them", async () => {
    const h = harness();
    const nul = await h.rpc("message/stream", startWithFile({ bytes: "AAAA", name: "a\u0000b" }));
    expect(nul.body.error.code).toBe(-32602);
    expect(nul.body.error.data.field).toBe("params.message.parts.1.file.name");
    expect(nul.body.error.message).toContain("params.message.parts.1.file.name");

    const big = await h.rpc(
      "message/stream",
      startWithFile({ uri: `https://example.com/${"x".repeat(L.partContentBytes)}` }),
    );
    expect(big.body.error.code).toBe(-32602);
    expect(big.body.error.data.field).toBe("params.message.parts.1.file");
  });

  it("names them as v1.0 spells them for a v1.0 client", async () => {
    const h = harness();
    const params = {
      message: {
        role: "ROLE_USER",
        messageId: "m-v1",
        parts: [{ text: "restock" }, { raw: "AAAA", filename: "a\u0000b" }],
      },
      metadata: { storeId: "store-001" },
    };
    const response = await h.call(
      { jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params },
      { headers: { "A2A-Version": "1.0" } },
    );
    const body = await response.json();
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toContain("params.message.parts.1.filename");
  });
});
