import type { CardSigning } from "../adapters/node-card-signing/card-signing.js";
import { requestedProtocolVersion } from "../protocol/dialect/protocol-version.js";
import { type RequestHeaders, readHeaders } from "../protocol/header-reader.js";
import { buildAgentCardV1 } from "../protocol/schemas/agent-card.js";
import type { AgentCardInput } from "../protocol/schemas/agent-card-input.js";
import { buildAgentCardV03 } from "../protocol/v0_3/agent-card.js";

/** A discovery answer: its headers (for caches) and its JSON body. */
export interface DiscoveryAnswer {
  headers: Record<string, string>;
  body: unknown;
}

/** What a server answers at `/.well-known/agent-card.json` and, when the card is signed, at its JWKS URL. */
export interface AgentCardEndpoint {
  /**
   * The card in the dialect the request asks for (v1.0 when its `A2A-Version` header or query parameter
   * says 1.0, else v0.3), signed when there is a signer. `headers`: a web `Headers`, Express's `req`, or
   * node's `req.headers`; `url`: the request's URL, for `?A2A-Version=`.
   */
  card(headers: RequestHeaders, url?: string): Promise<DiscoveryAnswer>;
  /** The public keys of the card's signatures (A2A §8.4); undefined when the card is unsigned. */
  jwks: (() => Promise<DiscoveryAnswer>) | undefined;
}

/**
 * The agent card's discovery answers, for any framework. Both dialects' cards are made once, and a signed
 * card is signed once (`loadCardSigning` makes the signer from a key file). The answers may be cached for
 * five minutes, vary on `A2A-Version`, and carry the start as `last-modified`, so a framework that adds
 * an ETag (Express) answers 304 to a client whose copy is current.
 */
export function agentCardEndpoint(input: AgentCardInput, signing?: CardSigning): AgentCardEndpoint {
  const cards = { v03: buildAgentCardV03(input), v1: buildAgentCardV1(input) };
  const cacheControl = "public, max-age=300";
  const cardHeaders = { "cache-control": cacheControl, vary: "A2A-Version", "last-modified": new Date().toUTCString() };
  return {
    async card(headers, url) {
      const asked = requestedProtocolVersion(readHeaders(headers), url);
      const chosen = asked.ok && asked.version === "1.0" ? cards.v1 : cards.v03;
      return { headers: cardHeaders, body: signing ? await signing.signed(chosen) : chosen };
    },
    jwks: signing && (async () => ({ headers: { "cache-control": cacheControl }, body: await signing.jwks() })),
  };
}
