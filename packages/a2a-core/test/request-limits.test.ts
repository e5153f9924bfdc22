import { describe, expect, it } from "vitest";
import { DEFAULTS } from "../src/assembly/handler-options.js";
import { A2A_LIMITS as L } from "../src/protocol/limits.js";
import { harnessPerTest, readFrames } from "./support/handler-harness.js";

const harness = harnessPerTest();

/** JSON with every non-ASCII character written as a `\uXXXX` escape: the longest a client may make it. */
function longestJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * The largest valid task start: every bound reached, with characters whose JSON form is longest per byte
 * counted (a control character is 6 bytes of JSON for 1 byte of text; "é" is 6 for the 2 that metadata and
 * part content are measured in).
 */
function largestValidStart(): string {
  const control = "\u0001";
  const id = control.repeat(L.idLength);
  const storeId = `store-${control.repeat(L.idLength - 6)}`;
  // Measured as compact JSON: fill a string until the object around it reaches `bytes`.
  const fill = (bytes: number, around: Record<string, unknown>) =>
    "é".repeat(Math.floor((bytes - Buffer.byteLength(JSON.stringify({ ...around, fill: "" }))) / 2));
  const textParts = L.parts - 1; // one part is a data part
  const texts = Array.from({ length: textParts }, (_, i) =>
    control.repeat(Math.floor(L.textBytes / textParts) + (i === 0 ? L.textBytes % textParts : 0)),
  );
  const parts = [
    ...texts.map((text) => ({ kind: "text", text })),
    { kind: "data", data: { fill: fill(L.partContentBytes, {}) } },
  ];
  return longestJson({
    jsonrpc: "2.0",
    id: control.repeat(L.requestIdLength),
    method: "SendStreamingMessage",
    params: {
      message: { role: "user", messageId: id, contextId: id, parts },
      metadata: { storeId, fill: fill(L.metadataBytes, { storeId }) },
    },
  });
}

describe("the default body limit", () => {
  it("admits the largest valid request written as long as JSON allows, and the task starts", async () => {
    const body = largestValidStart();
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(DEFAULTS.maxBodyBytes);
    // Nearly all of the limit is needed: it is sized to the bounds, not picked at random.
    expect(Buffer.byteLength(body)).toBeGreaterThan(DEFAULTS.maxBodyBytes * 0.75);
    const h = harness();
    const frames = await readFrames(await h.call(body));
    expect(frames[0]?.event).toBe("task");
    expect(frames[0]?.result.history[0].parts).toHaveLength(L.parts);
  });

  it("refuses one byte more with 413 and the limit in the message", async () => {
    const h = harness();
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } });
    const res = await h.call(body + " ".repeat(DEFAULTS.maxBodyBytes - Buffer.byteLength(body) + 1));
    expect(res.status).toBe(413);
    expect((await res.json()).error.message).toContain(String(DEFAULTS.maxBodyBytes));
  });

  it("is the value in A2A_LIMITS, and the handler reports it", () => {
    expect(DEFAULTS.maxBodyBytes).toBe(L.maxBodyBytes);
    expect(harness().handler.maxBodyBytes).toBe(L.maxBodyBytes);
  });
});
