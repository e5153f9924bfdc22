import { describe, expect, it } from "vitest";
import { ERROR_CODES, InvalidParamsError } from "../src/protocol/errors.js";
import { harnessPerTest } from "./support/handler-harness.js";

const harness = harnessPerTest();

// A durable store throws InvalidParamsError when the database refuses the request's values (see
// postgres-store's asRequestDataError): the request is wrong, so it must not be answered as an outage.
describe("a store that refuses the request's data", () => {
  it("is answered -32602 (HTTP 200, no Retry-After) with the store's cause logged, not 503", async () => {
    const warnings: Array<{ obj: object; msg?: string }> = [];
    const logger = { info() {}, error() {}, warn: (obj: object, msg?: string) => warnings.push({ obj, msg }) };
    const h = harness(undefined, { logger });
    const cause = Object.assign(new Error("invalid input syntax for type json"), { code: "22P02" });
    h.stores.idempotency.createOrGet = async () => {
      throw InvalidParamsError.forField("params", "the request holds a value the store cannot keep", { cause });
    };
    const res = await h.call({
      jsonrpc: "2.0",
      id: 1,
      method: "SendStreamingMessage",
      params: { message: { role: "user", parts: [{ kind: "text", text: "x" }] }, metadata: { storeId: "store-1" } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("retry-after")).toBeNull();
    const body = await res.json();
    expect(body.error).toMatchObject({ code: ERROR_CODES.InvalidParams, data: { field: "params" } });
    expect(JSON.stringify(body)).not.toMatch(/syntax|type json/);
    expect(warnings).toEqual([{ obj: { err: cause, code: ERROR_CODES.InvalidParams }, msg: "request refused" }]);
  });
});
