import canonicalizeModule from "canonicalize";
import { base64url, decodeProtectedHeader, FlattenedSign, flattenedVerify } from "jose";
import { z } from "zod";

// canonicalize is CommonJS (`module.exports = serialize`): a default import is that function at run time
// in ESM and in tsup's CJS output alike, but its declaration file types the default import as the module.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** One JWS over the card (A2A §8.4): the flattened JSON serialization without its payload. */
export const AgentCardSignature = z.object({
  protected: z.string(),
  signature: z.string(),
  header: z.record(z.string(), z.unknown()).optional(),
});
export type AgentCardSignature = z.infer<typeof AgentCardSignature>;

/**
 * A JSON Web Key (RFC 7517), with the parameters jose's `JWK` has (a jose `JWK` fits). Spelled out here so
 * the declarations import nothing from jose, which is ESM only: a CommonJS consumer's types could not.
 */
export interface AgentCardJwk {
  kty?: string;
  kid?: string;
  alg?: string;
  use?: string;
  key_ops?: string[];
  ext?: boolean;
  crv?: string;
  x?: string;
  y?: string;
  d?: string;
  n?: string;
  e?: string;
  p?: string;
  q?: string;
  dp?: string;
  dq?: string;
  qi?: string;
  k?: string;
  pub?: string;
  priv?: string;
  x5c?: string[];
  x5t?: string;
  "x5t#S256"?: string;
  x5u?: string;
}

/** The public keys a card's signatures are checked against: a JWKS (RFC 7517), as served at the `jku`. */
export interface AgentCardKeySet {
  keys: AgentCardJwk[];
}

/** A private key that signs cards, and what its signatures say about it. */
export interface AgentCardSigner {
  /** The private key: a `CryptoKey`, a node `KeyObject` (anything with its `type`) or a private JWK. */
  key: CryptoKey | { type: string } | AgentCardJwk;
  /** The key's id in the JWKS a verifier fetches (`kid`). */
  kid: string;
  /** The JWS algorithm, e.g. `ES256`, `EdDSA`, `RS256`. */
  alg: string;
  /** Where the public keys are published (`jku`): the JWKS URL. */
  jwksUrl?: string;
}

/**
 * The bytes a card's signatures cover: RFC 8785 (JCS) of the card without `signatures`, with empty values
 * (`""`, `null`, `[]`, `{}`) left out at every depth, as protobuf field presence reads them and as the
 * official SDK's verifier computes it.
 */
export function canonicalAgentCard(card: Record<string, unknown>): string {
  const { signatures: _signatures, ...rest } = card;
  return canonicalize(withoutEmpty(rest) ?? {}) ?? "{}";
}

function withoutEmpty(value: unknown): unknown {
  if (value === "" || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(withoutEmpty).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => [key, withoutEmpty(item)] as const)
      .filter(([, item]) => item !== undefined);
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }
  return value;
}

/** The card with one more signature: a JWS (`typ: JOSE`, `alg`, `kid`, `jku`) over its canonical form. */
export async function signAgentCard<C extends Record<string, unknown>>(
  card: C,
  signer: AgentCardSigner,
): Promise<C & { signatures: AgentCardSignature[] }> {
  const payload = new TextEncoder().encode(canonicalAgentCard(card));
  const jws = await new FlattenedSign(payload)
    .setProtectedHeader({
      alg: signer.alg,
      typ: "JOSE",
      kid: signer.kid,
      ...(signer.jwksUrl ? { jku: signer.jwksUrl } : {}),
    })
    .sign(signer.key as Parameters<FlattenedSign["sign"]>[0]);
  const existing = AgentCardSignature.array().safeParse(card.signatures);
  // A flattened JWS with a protected header always has it.
  const signature: AgentCardSignature = { protected: jws.protected ?? "", signature: jws.signature };
  return { ...card, signatures: [...(existing.success ? existing.data : []), signature] };
}

/**
 * Whether one of the card's signatures verifies with the key of its `kid` in `keys`: the `kid` of the
 * signature that did, or undefined when none did (no signatures, unknown keys, a changed card).
 */
export async function verifyAgentCardSignature(
  card: Record<string, unknown>,
  keys: AgentCardKeySet,
): Promise<string | undefined> {
  const signatures = AgentCardSignature.array().safeParse(card.signatures);
  if (!signatures.success) return undefined;
  const payload = base64url.encode(new TextEncoder().encode(canonicalAgentCard(card)));
  for (const signature of signatures.data) {
    try {
      const { kid, alg } = decodeProtectedHeader(signature);
      const jwk = keys.keys.find((key) => key.kid === kid);
      if (!jwk || !kid || !alg) continue;
      const key = jwk as Parameters<typeof flattenedVerify>[1];
      await flattenedVerify({ payload, protected: signature.protected, signature: signature.signature }, key);
      return kid;
    } catch {
      // Not this one: try the next signature.
    }
  }
  return undefined;
}
