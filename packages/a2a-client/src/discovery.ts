import { AgentCard } from "@a2a-partner/a2a-core";
import { InvalidResponseError } from "./errors.js";
import { httpJsonInterfaceOf } from "./internal/dialect/wire-dialect.js";

/** Where the reference server mounts its JSON-RPC endpoint and its agent card. */
export const ENDPOINT_PATH = "/api/v1/a2a";
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";

/** `<baseUrl>/api/v1/a2a`; a base URL that already is the endpoint is taken as it is. */
export function endpointFromBaseUrl(baseUrl: string): string {
  const url = parseUrl(baseUrl, "baseUrl");
  const path = url.pathname.replace(/\/+$/, "");
  if (path.endsWith(ENDPOINT_PATH)) return `${url.origin}${path}${url.search}`;
  return `${url.origin}${path}${ENDPOINT_PATH}`;
}

/** `<origin of baseUrl>/.well-known/agent-card.json` (well-known URIs live at the origin's root). */
export function agentCardUrlFromBaseUrl(baseUrl: string): string {
  return `${parseUrl(baseUrl, "baseUrl").origin}${AGENT_CARD_PATH}`;
}

/** Which binding to speak: `auto` takes JSON-RPC when the card offers it, else HTTP+JSON. */
export type BindingChoice = "auto" | "jsonrpc" | "http+json";

/**
 * Validates a fetched agent card (either dialect) and picks the endpoint of the binding asked for:
 * JSON-RPC is the v1.0 `supportedInterfaces` entry with the JSONRPC binding, else the v0.3 `url`;
 * HTTP+JSON is the entry with that binding and protocolVersion 1.0.
 */
export function endpointFromAgentCard(
  value: unknown,
  cardUrl: string,
  binding: BindingChoice = "jsonrpc",
): { card: AgentCard; endpoint: string; binding: "jsonrpc" | "http+json" } {
  const parsed = AgentCard.safeParse(value);
  if (!parsed.success) throw new InvalidResponseError(`The agent card at ${cardUrl} is not a valid A2A agent card`);
  const card = parsed.data;
  const jsonRpc = card.supportedInterfaces?.find((entry) => entry.protocolBinding.toUpperCase() === "JSONRPC");
  const jsonRpcUrl = jsonRpc?.url ?? ("url" in card ? card.url : undefined);
  const httpJsonUrl = binding === "jsonrpc" ? undefined : httpJsonInterfaceOf(card, cardUrl);
  if (binding === "http+json" || (binding === "auto" && !jsonRpcUrl && httpJsonUrl)) {
    if (!httpJsonUrl) {
      throw new InvalidResponseError(`The agent card at ${cardUrl} declares no HTTP+JSON interface of A2A 1.0`);
    }
    return { card, endpoint: httpJsonUrl, binding: "http+json" };
  }
  if (!jsonRpcUrl) throw new InvalidResponseError(`The agent card at ${cardUrl} declares no JSON-RPC endpoint`);
  return { card, endpoint: new URL(jsonRpcUrl, cardUrl).toString(), binding: "jsonrpc" };
}

export function parseUrl(value: string, name: string): URL {
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return url;
  } catch {
    // reported below
  }
  throw new TypeError(`${name} must be an absolute http(s) URL, got ${JSON.stringify(value.slice(0, 200))}`);
}
