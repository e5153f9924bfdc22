import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Headers every answer of an API server carries: no MIME sniffing, no framing, no referrer, and a
 * content policy that lets a browser run or load nothing from a JSON answer. Pass them to
 * `toNodeHandler({ headers })` for the A2A endpoint, and use `securityHeaders` in front of other routes.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
});

/** Connect-style middleware (Express, Connect, a plain node:http chain) that sets SECURITY_HEADERS. */
export function securityHeaders(_req: IncomingMessage, res: ServerResponse, next: () => void): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  next();
}
