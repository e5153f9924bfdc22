import { exportJWK, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import { buildAgentCardV1 } from "../schemas/agent-card.js";
import { canonicalAgentCard, signAgentCard, verifyAgentCardSignature } from "./card-signature.js";

const card = buildAgentCardV1({
  name: "Store robots",
  description: "Robots",
  endpointUrl: "https://robots.example.com/api/v1/a2a",
  version: "1.0.0",
  skills: [{ id: "restock", name: "Restock", description: "Restock a shelf", tags: ["store"] }],
});

async function keyPair(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { signer: { key: privateKey, kid, alg: "ES256" }, jwk: { ...(await exportJWK(publicKey)), kid } };
}

describe("signed agent cards", () => {
  it("canonicalises by RFC 8785 without signatures or empty values", () => {
    expect(canonicalAgentCard({ b: 1, a: { z: "", y: [], x: {} }, c: [null, "k"], signatures: [{}] })).toBe(
      '{"b":1,"c":["k"]}',
    );
    // Key order and empty values do not change the signed bytes.
    expect(canonicalAgentCard({ x: 1, y: { list: [] }, z: "t" })).toBe(canonicalAgentCard({ z: "t", x: 1 }));
  });

  it("signs with the configured key and verifies with the public JWKS; a changed card or another key fails", async () => {
    const { signer, jwk } = await keyPair("card-key-1");
    const signed = await signAgentCard(card, {
      ...signer,
      jwksUrl: "https://robots.example.com/.well-known/jwks.json",
    });
    expect(signed.signatures).toHaveLength(1);
    const header = JSON.parse(Buffer.from(signed.signatures[0]?.protected ?? "", "base64url").toString());
    expect(header).toEqual({
      alg: "ES256",
      typ: "JOSE",
      kid: "card-key-1",
      jku: "https://robots.example.com/.well-known/jwks.json",
    });
    expect(await verifyAgentCardSignature(signed, { keys: [jwk] })).toBe("card-key-1");

    expect(await verifyAgentCardSignature({ ...signed, name: "Evil robots" }, { keys: [jwk] })).toBeUndefined();
    const other = await keyPair("card-key-1");
    expect(await verifyAgentCardSignature(signed, { keys: [other.jwk] })).toBeUndefined();
    expect(await verifyAgentCardSignature(card, { keys: [jwk] })).toBeUndefined();
  });
});
