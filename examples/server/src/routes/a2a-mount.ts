import type { RequestListener } from "node:http";
import type { A2AHandler } from "@a2a-partner/a2a-core";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";
import { SECURITY_HEADERS as headers } from "@a2a-partner/a2a-core/node-runtime";
import type { Express } from "express";
import { A2A_PATH } from "../agent-card.ts";

/**
 * Mounts the A2A endpoint on `app` (for anyone mounting `app` elsewhere) and returns the request listener
 * for node:http: the A2A endpoint straight to its node handler, everything else through `app`. It is
 * served at A2A_PATH and at the root too, where generic A2A tools (the conformance kit) send their
 * requests when given only the base URL (docs/interop.md); each node handler says which URLs are its own
 * (a2a-core's route table), so the server keeps no route predicate of its own.
 */
export function mountA2AEndpoint(app: Express, handler: A2AHandler): RequestListener {
  // The core handler reads the raw body itself (size limit, UTF-8, JSON): no body parser in front of it.
  const a2a = toNodeHandler(handler, { headers, basePath: A2A_PATH });
  const a2aAtRoot = toNodeHandler(handler, { headers, basePath: "/" });
  const endpointOf = (url: string | undefined) =>
    a2a.serves(url) ? a2a : a2aAtRoot.serves(url) ? a2aAtRoot : undefined;
  app.use((req, res, next) => {
    const endpoint = endpointOf(req.url);
    if (endpoint) void endpoint(req, res);
    else next();
  });

  // Measured: Express's router kept ~0.5 KiB of closures and a parsed URL alive per open stream and
  // cost a few µs per request; the endpoint's own adapter needs none of it.
  return (req, res) => {
    // The adapter writes the security headers with the answer's own (no header map kept per stream).
    const endpoint = endpointOf(req.url);
    if (endpoint) void endpoint(req, res);
    else app(req, res);
  };
}
