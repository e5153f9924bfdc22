import type { RequestListener } from "node:http";
import type { A2AHandler } from "@a2a-partner/a2a-core";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";
import type { Express } from "express";
import { A2A_PATH } from "../agent-card.ts";
import { SECURITY_HEADERS } from "./security-headers.ts";

/**
 * Mounts the A2A endpoint on `app` (for anyone mounting `app` elsewhere) and returns the request listener
 * for node:http: the A2A endpoint straight to its node handler, everything else through `app`.
 */
export function mountA2AEndpoint(app: Express, handler: A2AHandler): RequestListener {
  // The core handler reads the raw body itself (size limit, UTF-8, JSON): no body parser in front of it.
  const a2a = toNodeHandler(handler, { headers: Object.fromEntries(SECURITY_HEADERS) });
  app.all(A2A_PATH, a2a);
  // The HTTP+JSON binding's routes below it (…/message:stream, …/tasks/{id}, …): the same handler.
  app.use(A2A_PATH, (req, res, next) => (isHttpJsonPath(req.url) ? void a2a(req, res) : next()));
  // The same endpoint at the root for POST, where generic A2A tools (the conformance kit) send JSON-RPC
  // when given only the base URL; the card names /api/v1/a2a (docs/interop.md).
  app.post("/", a2a);
  // And its HTTP+JSON routes at the root, where such tools join them to the base URL (`/message:send`).
  app.use((req, res, next) => (isHttpJsonPath(req.url) ? void a2a(req, res) : next()));

  // Measured: Express's router kept ~0.5 KiB of closures and a parsed URL alive per open stream and
  // cost a few µs per request; the endpoint's own adapter needs none of it.
  const route: RequestListener = (req, res) => {
    if (isA2APath(req.url) || (req.method === "POST" && isRootPath(req.url)) || isHttpJsonPath(req.url ?? "")) {
      // The adapter writes the security headers with the answer's own (no header map kept per stream).
      void a2a(req, res);
      return;
    }
    app(req, res);
  };
  return route;
}

/**
 * The A2A endpoint's path (a query string allowed) or an HTTP+JSON route below it (the handler answers a
 * route it does not know under /tasks/ with 404); anything else goes through Express.
 */
function isA2APath(url: string | undefined): boolean {
  if (!url?.startsWith(A2A_PATH)) return false;
  const rest = url.slice(A2A_PATH.length);
  return rest === "" || rest.startsWith("?") || isHttpJsonPath(rest);
}

/** A path (relative to the endpoint) of the HTTP+JSON binding: `/message:…`, `/tasks…`, `/extendedAgentCard`. */
function isHttpJsonPath(rest: string): boolean {
  return /^\/(?:message:|tasks(?:[/?]|$)|extendedAgentCard(?:\?|$))/.test(rest);
}

function isRootPath(url: string | undefined): boolean {
  return url === "/" || url?.startsWith("/?") === true;
}
