import type { HeaderReader } from "../header-reader.js";

export interface AgentCardResponseOptions {
  /** When the card last changed (the `Last-Modified` header): usually the process's start. */
  lastModified: Date;
  /** `Cache-Control: public, max-age=…`. Default 300 s. */
  maxAgeSeconds?: number;
}

/** What to answer a GET of the card: 200 with the body, or 304 to a client whose copy is current. */
export interface AgentCardResponse {
  status: 200 | 304;
  headers: Record<string, string>;
  /** The card's JSON; undefined with 304. */
  body: string | undefined;
}

/**
 * The card as A2A's caching rules (specification §8.6) have it served: `Cache-Control` with `max-age`,
 * an `ETag` hashed from the card's JSON and `Last-Modified`, and 304 Not Modified to a conditional
 * request (`If-None-Match`, else `If-Modified-Since`) whose copy is current. The JSON and its ETag are
 * made once; the function answers each request.
 */
export function agentCardResponder(
  card: unknown,
  options: AgentCardResponseOptions,
): (requestHeaders: HeaderReader) => AgentCardResponse {
  const body = JSON.stringify(card);
  const etag = `"${fnv1a64(body)}"`;
  // HTTP dates have whole seconds: a copy stamped with this very second is current.
  const modifiedSecond = Math.floor(options.lastModified.getTime() / 1000);
  const headers = {
    "cache-control": `public, max-age=${options.maxAgeSeconds ?? 300}`,
    etag,
    "last-modified": options.lastModified.toUTCString(),
  };
  return (requestHeaders) => {
    const ifNoneMatch = requestHeaders.get("if-none-match");
    const ifModifiedSince = requestHeaders.get("if-modified-since");
    const current =
      ifNoneMatch !== null
        ? ifNoneMatch.split(",").some((tag) => ["*", etag, `W/${etag}`].includes(tag.trim()))
        : ifModifiedSince !== null && Date.parse(ifModifiedSince) / 1000 >= modifiedSecond;
    if (current) return { status: 304, headers, body: undefined };
    return { status: 200, headers: { ...headers, "content-type": "application/json; charset=utf-8" }, body };
  };
}

/** FNV-1a, 64 bits, as hex: a cheap, synchronous hash on every runtime (an ETag needs no cryptography). */
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}
