import { describe, expect, it } from "vitest";
import { toFetchHandler } from "../src/adapters/fetch.js";
import type { AgentCardInput } from "../src/index.js";
import { cardInput } from "../src/protocol/card-input.fixture.js";
import { AgentCardV1 } from "../src/protocol/schemas/agent-card.js";
import { AgentCardV03 } from "../src/protocol/v0_3/agent-card.js";
import { harnessPerTest } from "./support/handler-harness.js";

/** GetExtendedAgentCard: the embedder's card for authenticated callers, -32004 without one. */

const harness = harnessPerTest();

const card = (workspaceId: string): AgentCardInput =>
  cardInput({ name: `Agent for ${workspaceId}`, endpointUrl: "https://agent.example.com/a2a" });

describe("GetExtendedAgentCard", () => {
  it("answers the caller's workspace's card in each dialect, and over HTTP+JSON", async () => {
    const h = harness(undefined, { extendedAgentCard: card });
    const v03 = await h.rpc("agent/getAuthenticatedExtendedCard", {});
    expect(AgentCardV03.parse(v03.body.result)).toMatchObject({ name: "Agent for ws-a" });
    expect(v03.body.result.supportsAuthenticatedExtendedCard).toBe(true);
    const v1 = await h.call(
      { jsonrpc: "2.0", id: 1, method: "GetExtendedAgentCard", params: { tenant: "" } },
      { headers: { "A2A-Version": "1.0" } },
    );
    const result = AgentCardV1.parse((await v1.json()).result);
    expect(result.capabilities.extendedAgentCard).toBe(true);
    const rest = await toFetchHandler(h.handler)(
      new Request("http://test/api/v1/a2a/extendedAgentCard", { headers: { authorization: "Bearer partner-b" } }),
    );
    expect(rest.status).toBe(200);
    expect((await rest.json()).name).toBe("Agent for ws-b");
  });

  it("is refused to an unauthenticated caller (401), and is -32004 when the embedder gives no card", async () => {
    const h = harness(undefined, { extendedAgentCard: card });
    const anonymous = await h.call({ jsonrpc: "2.0", id: 1, method: "GetExtendedAgentCard" }, { token: null });
    expect(anonymous.status).toBe(401);
    const none = harness();
    expect((await none.rpc("GetExtendedAgentCard", {})).body.error.code).toBe(-32004);
    expect((await none.rpc("agent/getAuthenticatedExtendedCard", {})).body.error.code).toBe(-32004);
  });
});
