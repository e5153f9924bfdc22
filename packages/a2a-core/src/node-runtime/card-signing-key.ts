import { createPrivateKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { type CardSigning, cardSigningAlgOf, createCardSigning } from "../adapters/node-card-signing/card-signing.js";
import { ConfigError } from "./settings.js";

/** The settings of a card signer read from a key file (`loadCardSigning`). */
export interface CardSigningSettings {
  /** A PKCS#8 PEM private key: EC P-256, P-384, Ed25519 or RSA. Unset: no signing. */
  keyFile: string | undefined;
  /** The key's id; default its RFC 7638 thumbprint. */
  kid: string | undefined;
  /** The JWS algorithm; default the one the key's type implies. */
  alg: string | undefined;
}

/**
 * The card signer of a key file (a2a-core/node's createCardSigning), or undefined when none is set; its
 * signatures name `jwksUrl`. The key is read and checked at once, so a bad key stops the start with a
 * ConfigError naming `names.keyFile` (default AGENT_CARD_SIGNING_KEY_FILE) or `names.alg`.
 */
export function loadCardSigning(
  settings: CardSigningSettings,
  jwksUrl: string,
  names: { keyFile: string; alg: string } = { keyFile: "AGENT_CARD_SIGNING_KEY_FILE", alg: "AGENT_CARD_SIGNING_ALG" },
): CardSigning | undefined {
  if (!settings.keyFile) return undefined;
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(readFileSync(settings.keyFile, "utf8"));
  } catch (error) {
    throw new ConfigError(`${names.keyFile} could not be read as a PEM private key: ${(error as Error).message}`);
  }
  const alg = settings.alg ?? cardSigningAlgOf(privateKey);
  if (alg === undefined) {
    throw new ConfigError(`${names.keyFile}: set ${names.alg} for a ${privateKey.asymmetricKeyType ?? "unknown"} key`);
  }
  return createCardSigning(privateKey, { jwksUrl, kid: settings.kid, alg });
}
