import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createCardSigning } from "../adapters/node-card-signing/card-signing.js";
import { verifyAgentCardSignature } from "../protocol/card/card-signature.js";
import { cardInput } from "../protocol/card-input.fixture.js";
import { agentCardEndpoint } from "./agent-card-endpoint.js";

const input = cardInput({ endpointUrl: "https://robots.example.com/a2a" });

describe("agentCardEndpoint", () => {
  it("answers v0.3's card unless the request asks for 1.0, by header or query, cacheable per A2A-Version", async () => {
    const endpoint = agentCardEndpoint(input);
    const v03 = await endpoint.card({});
    expect(v03.body).toMatchObject({ protocolVersion: "0.3.0", url: "https://robots.example.com/a2a" });
    expect(v03.headers).toMatchObject({ "cache-control": "public, max-age=300", vary: "A2A-Version" });
    expect(Date.parse(v03.headers["last-modified"] ?? "")).not.toBeNaN();
    const byHeader = await endpoint.card(new Headers({ "A2A-Version": "1.0" }));
    const byQuery = await endpoint.card({}, "/.well-known/agent-card.json?A2A-Version=1.0");
    expect(byHeader.body).toHaveProperty("supportedInterfaces");
    expect(byQuery.body).toEqual(byHeader.body);
    expect(endpoint.jwks).toBeUndefined();
  });

  it("signs each card once, and publishes the key that verifies it", async () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const signing = createCardSigning(privateKey, { jwksUrl: "https://robots.example.com/.well-known/jwks.json" });
    const endpoint = agentCardEndpoint(input, signing);
    const first = await endpoint.card({ "a2a-version": "1.0" });
    expect((await endpoint.card({ "a2a-version": "1.0" })).body).toBe(first.body);
    const jwks = await endpoint.jwks?.();
    expect(jwks?.headers).toEqual({ "cache-control": "public, max-age=300" });
    const keys = jwks?.body as Parameters<typeof verifyAgentCardSignature>[1];
    expect(await verifyAgentCardSignature(first.body as Record<string, unknown>, keys)).toBe(keys.keys[0]?.kid);
  });
});
