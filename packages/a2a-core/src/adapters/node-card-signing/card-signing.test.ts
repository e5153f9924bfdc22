import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyAgentCardSignature } from "../../protocol/card/card-signature.js";
import { cardSigningAlgOf, createCardSigning } from "./card-signing.js";

const card = { name: "robots", version: "1" };

describe("createCardSigning", () => {
  it("signs with the algorithm the key implies, under its thumbprint, and publishes the key that verifies", async () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const signing = createCardSigning(privateKey, { jwksUrl: "https://robots.example.com/.well-known/jwks.json" });
    const signed = await signing.signed(card);
    const jwks = await signing.jwks();
    expect(jwks.keys[0]).toMatchObject({ alg: "ES256", use: "sig", kid: expect.any(String) });
    expect(await verifyAgentCardSignature(signed, jwks)).toBe(jwks.keys[0]?.kid);
    expect(signing.signed(card)).toBe(signing.signed(card)); // one signature per card object
  });

  it("names the algorithm of each key type it knows, and needs alg for any other", () => {
    expect(cardSigningAlgOf(generateKeyPairSync("ed25519").privateKey)).toBe("EdDSA");
    expect(cardSigningAlgOf(generateKeyPairSync("ec", { namedCurve: "P-384" }).privateKey)).toBe("ES384");
    const ed448 = generateKeyPairSync("ed448").privateKey;
    expect(cardSigningAlgOf(ed448)).toBeUndefined();
    expect(() => createCardSigning(ed448, { jwksUrl: "https://x/jwks.json" })).toThrow(/give alg/);
  });
});
