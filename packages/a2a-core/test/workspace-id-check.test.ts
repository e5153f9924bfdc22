import { describe, expect, it } from "vitest";
import { createInMemoryStores } from "../src/stores/in-memory.js";
import { harnessPerTest, startParams } from "./support/handler-harness.js";

const harness = harnessPerTest();

// A workspace id the stores cannot hold is the embedder's misconfiguration: the caller learns which field
// at once (-32603, no Retry-After), instead of a 503 "retry" the stores' failure would give on every start.
describe("the workspace id authenticate returns", () => {
  it("is refused with the field named when the stores' checkWorkspaceId refuses it", async () => {
    const stores = Object.assign(createInMemoryStores(), {
      checkWorkspaceId: (id: string) => (id.startsWith("ws-") ? "must be a UUID" : undefined),
    });
    const errors: string[] = [];
    const logger = { info() {}, warn() {}, error: (_obj: object, msg?: string) => void errors.push(msg ?? "") };
    const h = harness(undefined, { stores, logger, authenticate: async () => ({ ok: true, workspaceId: "ws-a" }) });
    const { status, body } = await h.rpc("SendStreamingMessage", startParams());
    expect(status).toBe(200);
    expect(body.error).toEqual({
      code: -32603,
      message: "Server misconfigured: the workspaceId from authenticate must be a UUID",
      data: { field: "workspaceId" },
    });
    expect(errors).toEqual(["authenticate returned a workspaceId the stores refuse: it must be a UUID"]);
  });

  it("must be a non-empty string whatever the stores (an authenticate written in JavaScript may return anything)", async () => {
    const h = harness(undefined, { authenticate: async () => ({ ok: true, workspaceId: "" }) });
    const { body } = await h.rpc("GetTask", { id: "t-1" });
    expect(body.error.code).toBe(-32603);
    expect(body.error.message).toMatch(/workspaceId .*must be a non-empty string/);
  });

  it("passes when the stores have no check (the in-memory stores hold any id)", async () => {
    const h = harness(undefined, { authenticate: async () => ({ ok: true, workspaceId: "ws-a" }) });
    const { body } = await h.rpc("GetTask", { id: "t-1" });
    expect(body.error.code).toBe(-32001);
  });
});
