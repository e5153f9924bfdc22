import { describe, expect, it } from "vitest";
import { cardInput } from "../card-input.fixture.js";
import { AgentCardV03 } from "../v0_3/agent-card.js";
import { AgentCardV1, agentCardForRequest } from "./agent-card.js";

const input = cardInput();

describe("agent cards", () => {
  it("lists the HTTP+JSON binding after JSON-RPC when it has a URL", () => {
    const card = AgentCardV1.parse(
      agentCardForRequest(new Headers({ "A2A-Version": "1.0" }), { ...input, httpJsonUrl: input.endpointUrl }),
    );
    expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual([
      "JSONRPC 1.0",
      "JSONRPC 0.3",
      "HTTP+JSON 1.0",
    ]);
    expect(card.supportedInterfaces[2]?.url).toBe(input.endpointUrl);
    expect(
      AgentCardV03.parse(agentCardForRequest(new Headers(), { ...input, httpJsonUrl: "http://x/rest" }))
        .supportedInterfaces?.[2],
    ).toEqual({
      url: "http://x/rest",
      protocolBinding: "HTTP+JSON",
      protocolVersion: "1.0",
    });
  });

  it("lists the gRPC binding last, as host:port, which both card schemas take (and nothing else bare)", () => {
    const withGrpc = { ...input, httpJsonUrl: input.endpointUrl, grpcUrl: "grpc.example.com:443" };
    for (const card of [
      AgentCardV1.parse(agentCardForRequest(new Headers({ "A2A-Version": "1.0" }), withGrpc)),
      AgentCardV03.parse(agentCardForRequest(new Headers(), withGrpc)),
    ]) {
      expect(card.supportedInterfaces?.at(-1)).toEqual({
        url: "grpc.example.com:443",
        protocolBinding: "GRPC",
        protocolVersion: "1.0",
      });
    }
    const bare = agentCardForRequest(new Headers({ "A2A-Version": "1.0" }), { ...input, grpcUrl: "not an address" });
    expect(AgentCardV1.safeParse(bare).success).toBe(false);
  });

  it("serves the v0.3 card by default, with the endpoint, streaming and a bearer scheme", () => {
    const card = AgentCardV03.parse(agentCardForRequest(new Headers(), input));
    expect(card.url).toBe(input.endpointUrl);
    expect(card.capabilities.streaming).toBe(true);
    expect(card.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(card.security).toEqual([{ bearer: [] }]);
    expect(card.supportedInterfaces?.[0]?.url).toBe(input.endpointUrl);
  });

  it("serves the v1.0 card when asked with A2A-Version: 1.0", () => {
    const card = AgentCardV1.parse(agentCardForRequest(new Headers({ "A2A-Version": "1.0" }), input));
    // One endpoint, both dialects: the request's A2A-Version header chooses (1.0 first, as SDKs prefer).
    expect(card.supportedInterfaces).toEqual([
      { url: input.endpointUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: input.endpointUrl, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ]);
    expect(card.securitySchemes.bearer?.httpAuthSecurityScheme.scheme).toBe("Bearer");
    expect(card.securityRequirements[0]?.schemes.bearer).toEqual({ list: [] });
    expect(() => AgentCardV03.parse(card)).toThrow();
  });

  it("serves the v1.0 card for the A2A-Version query parameter, and the default card for other versions", () => {
    const viaQuery = agentCardForRequest(new Headers(), input, "/.well-known/agent-card.json?A2A-Version=1.0");
    expect(AgentCardV1.safeParse(viaQuery).success).toBe(true);
    for (const version of ["0.3", "2.0", ""]) {
      const card = agentCardForRequest(new Headers({ "A2A-Version": version }), input);
      expect(AgentCardV03.safeParse(card).success, version).toBe(true);
    }
  });

  it("says pushNotifications exactly as the input does, false when it says nothing", () => {
    const v1 = new Headers({ "A2A-Version": "1.0" });
    for (const headers of [new Headers(), v1]) {
      expect(agentCardForRequest(headers, input).capabilities?.pushNotifications).toBe(false);
      expect(agentCardForRequest(headers, { ...input, pushNotifications: true }).capabilities?.pushNotifications).toBe(
        true,
      );
      expect(agentCardForRequest(headers, { ...input, pushNotifications: false }).capabilities?.pushNotifications).toBe(
        false,
      );
    }
  });
});
