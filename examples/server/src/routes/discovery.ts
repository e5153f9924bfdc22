import { agentCardEndpoint, type DiscoveryAnswer, loadCardSigning } from "@a2a-partner/a2a-core/node-runtime";
import type { Express, Response } from "express";
import { agentCardInput } from "../agent-card.ts";
import type { ServerConfig } from "../config.ts";

/** Where the public keys of the card's signatures are published (A2A §8.4: the JWKS a verifier fetches). */
const JWKS_PATH = "/.well-known/jwks.json";

/**
 * The agent card at /.well-known/agent-card.json (the dialect A2A-Version asks for) and, when signed, its
 * JWKS (a2a-core/node-runtime's agentCardEndpoint). Express adds the ETag and answers 304 to a client whose
 * copy is current.
 */
export function discoveryRoutes(app: Express, config: ServerConfig, pushNotifications: boolean): void {
  const card = agentCardInput(config.publicUrl, {
    pushNotifications,
    ...(config.grpc ? { grpcUrl: config.grpc.publicAddress } : {}),
  });
  // AGENT_CARD_SIGNING_KEY_FILE, _KID, _ALG; a bad key stops the start.
  const signing = loadCardSigning(config.agentCardSigning, `${config.publicUrl}${JWKS_PATH}`);
  const discovery = agentCardEndpoint(card, signing);
  const send = (res: Response, answer: DiscoveryAnswer) => res.set(answer.headers).json(answer.body);
  app.get("/.well-known/agent-card.json", async (req, res) => send(res, await discovery.card(req, req.originalUrl)));
  const { jwks } = discovery;
  if (jwks) app.get(JWKS_PATH, async (_req, res) => send(res, await jwks()));
}
