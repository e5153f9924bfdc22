import { buildAgentCardV1, buildAgentCardV03, requestedProtocolVersion } from "@a2a-partner/a2a-core";
import { loadCardSigning } from "@a2a-partner/a2a-core/node-runtime";
import type { Express } from "express";
import { agentCardInput } from "../agent-card.ts";
import type { ServerConfig } from "../config.ts";

/** Where the public keys of the card's signatures are published (A2A §8.4: the JWKS a verifier fetches). */
const JWKS_PATH = "/.well-known/jwks.json";

/** The agent card at /.well-known/agent-card.json (the dialect A2A-Version asks for) and, when signed, its JWKS. */
export function discoveryRoutes(app: Express, config: ServerConfig, pushNotifications: boolean): void {
  const card = agentCardInput(config.publicUrl, {
    pushNotifications,
    ...(config.grpc ? { grpcUrl: config.grpc.publicAddress } : {}),
  });
  // Both cards once: the request picks one, and a signed card is signed once.
  const cards = { v03: buildAgentCardV03(card), v1: buildAgentCardV1(card) };
  // AGENT_CARD_SIGNING_KEY_FILE, _KID, _ALG; a bad key stops the start.
  const signing = loadCardSigning(config.agentCardSigning, `${config.publicUrl}${JWKS_PATH}`);
  // The cards are made at start: Express adds the ETag, and answers 304 to a client whose copy is current.
  const lastModified = new Date().toUTCString();

  app.get("/.well-known/agent-card.json", async (req, res) => {
    const asked = requestedProtocolVersion({ get: (name) => req.get(name) ?? null }, req.originalUrl);
    const chosen = asked.ok && asked.version === "1.0" ? cards.v1 : cards.v03;
    // The dialect depends on A2A-Version, so caches must key on it.
    res
      .set({ "cache-control": "public, max-age=300", vary: "A2A-Version", "last-modified": lastModified })
      .json(signing ? await signing.signed(chosen) : chosen);
  });
  if (signing) {
    app.get(JWKS_PATH, async (_req, res) => {
      res.set({ "cache-control": "public, max-age=300" }).json(await signing.jwks());
    });
  }
}
