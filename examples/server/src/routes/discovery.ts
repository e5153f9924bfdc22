import { buildAgentCardV1, buildAgentCardV03, requestedProtocolVersion } from "@a2a-partner/a2a-core";
import type { Express } from "express";
import { agentCardInput } from "../agent-card.ts";
import { JWKS_PATH, loadCardSigning } from "../agent-card-signing.ts";
import type { ServerConfig } from "../config.ts";

/** The agent card at /.well-known/agent-card.json (the dialect A2A-Version asks for) and, when signed, its JWKS. */
export function discoveryRoutes(app: Express, config: ServerConfig, pushNotifications: boolean): void {
  const card = agentCardInput(config.publicUrl, {
    pushNotifications,
    ...(config.grpc ? { grpcUrl: config.grpc.publicAddress } : {}),
  });
  // Both cards once: the request picks one, and a signed card is signed once (agent-card-signing.ts).
  const cards = { v03: buildAgentCardV03(card), v1: buildAgentCardV1(card) };
  const signing = loadCardSigning(config.agentCardSigning ?? {}, config.publicUrl);
  // The cards are made at start: Express adds the ETag, and answers 304 to a client whose copy is current.
  const lastModified = new Date().toUTCString();

  app.get("/.well-known/agent-card.json", async (req, res) => {
    const asked = requestedProtocolVersion(toHeaders(req.headers), req.originalUrl);
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

function toHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return headers;
}
