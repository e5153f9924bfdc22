import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { type AgentCardSigner, signAgentCard } from "@a2a-partner/a2a-core";
import { calculateJwkThumbprint, exportJWK, type JSONWebKeySet } from "jose";
import { ConfigError } from "./config.ts";

/** Where the public keys of the card's signatures are published (A2A §8.4: the JWKS a verifier fetches). */
export const JWKS_PATH = "/.well-known/jwks.json";

export interface CardSigning {
  /** The card with its signature; each card is signed once and kept (it changes only with the config). */
  signed<C extends Record<string, unknown>>(card: C): Promise<C>;
  /** The public key set served at JWKS_PATH. */
  jwks(): Promise<JSONWebKeySet>;
}

/**
 * The card signer of AGENT_CARD_SIGNING_KEY_FILE (a PKCS#8 PEM private key: EC P-256, P-384, Ed25519 or
 * RSA), or undefined when it is not set. The key is read and checked at once, so a bad key stops the
 * start; `kid` defaults to the key's RFC 7638 thumbprint, `alg` to the one its type implies.
 */
export function loadCardSigning(
  options: { keyFile: string | undefined; kid: string | undefined; alg: string | undefined },
  publicUrl: string,
): CardSigning | undefined {
  if (!options.keyFile) return undefined;
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(readFileSync(options.keyFile, "utf8"));
  } catch (error) {
    throw new ConfigError(
      `AGENT_CARD_SIGNING_KEY_FILE could not be read as a PEM private key: ${(error as Error).message}`,
    );
  }
  const alg = options.alg ?? defaultAlg(privateKey);
  const prepared = (async () => {
    const jwk = await exportJWK(createPublicKey(privateKey));
    const kid = options.kid ?? (await calculateJwkThumbprint(jwk));
    const signer: AgentCardSigner = { key: privateKey, kid, alg, jwksUrl: `${publicUrl}${JWKS_PATH}` };
    return { signer, jwks: { keys: [{ ...jwk, kid, alg, use: "sig" }] } };
  })();
  const cards = new WeakMap<object, Promise<unknown>>();
  return {
    signed(card) {
      let signed = cards.get(card);
      if (!signed) {
        signed = prepared.then(({ signer }) => signAgentCard(card, signer));
        cards.set(card, signed);
      }
      return signed as Promise<typeof card>;
    },
    jwks: () => prepared.then(({ jwks }) => jwks),
  };
}

function defaultAlg(key: KeyObject): string {
  const type = key.asymmetricKeyType;
  if (type === "ed25519") return "EdDSA";
  if (type === "rsa") return "RS256";
  if (type === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === "prime256v1") return "ES256";
    if (curve === "secp384r1") return "ES384";
  }
  throw new ConfigError(`AGENT_CARD_SIGNING_KEY_FILE: set AGENT_CARD_SIGNING_ALG for a ${type ?? "unknown"} key`);
}
