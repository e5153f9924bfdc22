// The signed agent card (A2A §8.4) of the reference server, checked by the official SDK's verifier: the
// server signs its cards with AGENT_CARD_SIGNING_KEY_FILE and publishes the public key at
// /.well-known/jwks.json; a changed card, or a key that is not the server's, does not verify.
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyAgentCardSignature } from "@a2a-js/sdk";
import { A2AClient, InvalidResponseError } from "@a2a-partner/a2a-client";
import { exportJWK, exportPKCS8, generateKeyPair, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./support/backends.ts";
import { startTestServer, type TestServer } from "./support/test-server.ts";

describe("the signed agent card (PGlite)", () => {
  let database: TestDatabase;
  let server: TestServer;
  let jwks: { keys: JWK[] };

  beforeAll(async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const keyFile = join(tmpdir(), `card-key-${crypto.randomUUID()}.pem`);
    writeFileSync(keyFile, await exportPKCS8(privateKey), { mode: 0o600 });
    database = await createTestDatabase("pglite");
    server = await startTestServer(database.db, {
      agentCardSigning: { keyFile, kid: "card-2026", alg: undefined },
    });
    jwks = await (await fetch(`${server.url}/.well-known/jwks.json`)).json();
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  /** The SDK's verifier, fetching the key of a signature's kid from the server's JWKS. */
  const sdkVerify = verifyAgentCardSignature(async (kid) => {
    const jwk = jwks.keys.find((key) => key.kid === kid);
    if (!jwk) throw new Error(`no key ${kid}`);
    return jwk;
  });

  it("signs the v1.0 card so that the official SDK's verifyAgentCardSignature accepts it", async () => {
    expect(jwks.keys).toEqual([expect.objectContaining({ kid: "card-2026", alg: "ES256", use: "sig", kty: "EC" })]);
    expect(jwks.keys[0]).not.toHaveProperty("d");
    const card = await (
      await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })
    ).json();
    expect(card.signatures).toHaveLength(1);
    const header = JSON.parse(Buffer.from(card.signatures[0].protected, "base64url").toString());
    expect(header).toMatchObject({
      alg: "ES256",
      typ: "JOSE",
      kid: "card-2026",
      jku: expect.stringMatching(/\/\.well-known\/jwks\.json$/),
    });
    await expect(sdkVerify(card)).resolves.toBeUndefined();
    await expect(sdkVerify({ ...card, description: "Send us your tokens" })).rejects.toThrow(/No valid signatures/);
  });

  it("lets a2a-client verify the card when given the keys, and refuse one that does not verify", async () => {
    const client = new A2AClient({ baseUrl: server.url, agentCardKeys: jwks, allowCrossOriginEndpoint: true });
    const card = await client.discover();
    expect(card.signatures).toHaveLength(1);
    await client.close();

    const { publicKey } = await generateKeyPair("ES256", { extractable: true });
    const stranger = { keys: [{ ...(await exportJWK(publicKey)), kid: "card-2026" }] };
    const wary = new A2AClient({ baseUrl: server.url, agentCardKeys: stranger, allowCrossOriginEndpoint: true });
    await expect(wary.discover()).rejects.toBeInstanceOf(InvalidResponseError);
    await wary.close();
  });
});
