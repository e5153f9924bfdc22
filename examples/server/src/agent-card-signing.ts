import { createPrivateKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { type CardSigning, cardSigningAlgOf, createCardSigning } from "@a2a-partner/a2a-core/node";
import { ConfigError } from "./config.ts";

/** Where the public keys of the card's signatures are published (A2A §8.4: the JWKS a verifier fetches). */
export const JWKS_PATH = "/.well-known/jwks.json";

/**
 * The card signer of AGENT_CARD_SIGNING_KEY_FILE (a PKCS#8 PEM private key: EC P-256, P-384, Ed25519 or
 * RSA; a2a-core/node's createCardSigning), or undefined when it is not set. The key is read and checked
 * at once, so a bad key stops the start.
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
  const alg = options.alg ?? cardSigningAlgOf(privateKey);
  if (alg === undefined) {
    throw new ConfigError(
      `AGENT_CARD_SIGNING_KEY_FILE: set AGENT_CARD_SIGNING_ALG for a ${privateKey.asymmetricKeyType ?? "unknown"} key`,
    );
  }
  return createCardSigning(privateKey, { jwksUrl: `${publicUrl}${JWKS_PATH}`, kid: options.kid, alg });
}
