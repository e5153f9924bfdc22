import { UntrustedEndpointError } from "../errors.js";

/**
 * Where a card may send the client, which attaches the bearer token to every call: to an origin the
 * caller chose (the card's own, or `baseUrl`'s), or, with `allowCrossOrigin`, anywhere — but from https
 * down to plain http only with `allowInsecure` as well. A card is data from the network; without this check a card on a compromised or
 * misconfigured host could collect tokens, or have them sent in clear text.
 */
export function assertEndpointAllowed(
  endpoint: string,
  cardUrl: string,
  options: { baseUrl?: string; allowCrossOrigin?: boolean; allowInsecure?: boolean },
): void {
  const target = new URL(endpoint);
  const card = new URL(cardUrl);
  const chosen = new Set([card.origin, ...(options.baseUrl ? [new URL(options.baseUrl).origin] : [])]);
  if (chosen.has(target.origin)) return;
  if (card.protocol === "https:" && target.protocol === "http:" && !options.allowInsecure) {
    throw new UntrustedEndpointError(
      `The agent card at ${cardUrl} (https) declares a plain-http endpoint, ${endpoint}: refusing to send the ` +
        "token unencrypted. Pass allowInsecureEndpoint: true (or the endpoint as baseUrl) if you really mean it.",
      { endpoint, cardUrl, reason: "insecure" },
    );
  }
  if (options.allowCrossOrigin) return;
  throw new UntrustedEndpointError(
    `The agent card at ${cardUrl} declares an endpoint on another origin, ${target.origin}: refusing to send ` +
      "the token there. Pass allowCrossOriginEndpoint: true if you trust the card.",
    { endpoint, cardUrl, reason: "cross-origin" },
  );
}

/**
 * The same rule for a card's gRPC interface (`host:port`): its port is its own, so its host must be the
 * card's (or `baseUrl`'s) unless `allowCrossOrigin`.
 */
export function assertGrpcAddressAllowed(
  address: string,
  cardUrl: string,
  options: { baseUrl?: string; allowCrossOrigin?: boolean },
): void {
  const host = hostOfAddress(address);
  const chosen = new Set([new URL(cardUrl).hostname, ...(options.baseUrl ? [new URL(options.baseUrl).hostname] : [])]);
  if ((host !== undefined && chosen.has(host)) || options.allowCrossOrigin) return;
  throw new UntrustedEndpointError(
    `The agent card at ${cardUrl} declares a gRPC interface on another host, ${address}: refusing to send ` +
      "the token there. Pass allowCrossOriginEndpoint: true if you trust the card.",
    { endpoint: address, cardUrl, reason: "cross-origin" },
  );
}

/** The host of `host:port` or `[v6]:port`, as URL.hostname writes it; undefined when it is not one. */
function hostOfAddress(address: string): string | undefined {
  try {
    return new URL(`http://${address}`).hostname;
  } catch {
    return undefined;
  }
}
