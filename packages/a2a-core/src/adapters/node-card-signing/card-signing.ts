import { createPublicKey, type KeyObject } from "node:crypto";
import { calculateJwkThumbprint, exportJWK } from "jose";
import {
  type AgentCardJwk,
  type AgentCardKeySet,
  type AgentCardSigner,
  signAgentCard,
} from "../../protocol/card/card-signature.js";

/** Signs agent cards with one private key, and the public key set a verifier fetches (A2A §8.4). */
export interface CardSigning {
  /** The card with its signature; each card object is signed once and kept (sign the cards you serve, once). */
  signed<C extends Record<string, unknown>>(card: C): Promise<C>;
  /** The public key set to serve at `jwksUrl` (the package's own JWKS type: jose's is ESM-only). */
  jwks(): Promise<AgentCardKeySet>;
}

/**
 * The JWS algorithm a private key's type implies: `EdDSA` (Ed25519), `RS256` (RSA), `ES256` / `ES384`
 * (EC P-256 / P-384); undefined for any other key, whose algorithm must be given.
 */
export function cardSigningAlgOf(key: KeyObject): string | undefined {
  const type = key.asymmetricKeyType;
  if (type === "ed25519") return "EdDSA";
  if (type === "rsa") return "RS256";
  if (type === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === "prime256v1") return "ES256";
    if (curve === "secp384r1") return "ES384";
  }
  return undefined;
}

/**
 * Card signing with a node `KeyObject`: `kid` defaults to the public key's RFC 7638 thumbprint, `alg` to
 * the one its type implies (`cardSigningAlgOf`; a key of another type needs `alg`, or this throws). The
 * signatures name `jwksUrl` as their `jku`; serve `jwks()` there.
 */
export function createCardSigning(
  privateKey: KeyObject,
  options: { jwksUrl: string; kid?: string | undefined; alg?: string | undefined },
): CardSigning {
  const alg = options.alg ?? cardSigningAlgOf(privateKey);
  if (alg === undefined) {
    throw new TypeError(`no default JWS algorithm for a ${privateKey.asymmetricKeyType ?? "unknown"} key; give alg`);
  }
  const prepared = (async () => {
    const jwk = await exportJWK(createPublicKey(privateKey));
    const kid = options.kid ?? (await calculateJwkThumbprint(jwk));
    const signer: AgentCardSigner = { key: privateKey, kid, alg, jwksUrl: options.jwksUrl };
    const keys: AgentCardKeySet = { keys: [{ ...jwk, kid, alg, use: "sig" } as AgentCardJwk] };
    return { signer, jwks: keys };
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
